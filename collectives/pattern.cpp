#include "pattern.h"

#include <algorithm>

namespace collbench {

PatternRule::PatternRule(const PatternCase& pattern)
    : datatype_(pattern.datatype),
      outcome_(describe(pattern.kind).outcome),
      rank_(pattern.rank),
      root_(pattern.root),
      nranks_(pattern.nranks),
      share_(std::max<std::size_t>(pattern.shape.count, 1)),
      first_input_(in_place_send_offset(pattern.kind, pattern.rank, pattern.shape)),
      first_result_(in_place_recv_offset(pattern.kind, pattern.rank, pattern.shape)),
      input_count_(pattern.shape.send_count),
      result_count_(holds_result(pattern.kind, pattern.rank, pattern.root)
                        ? pattern.shape.recv_count
                        : 0) {
  const std::int64_t limit = exact_integer_limit(pattern.datatype);
  const std::int64_t p = pattern.nranks;
  // What reduces nothing moves inputs; they follow the min/max rule to vary across elements and
  // ranks, so a block from the wrong rank, or one left unmoved, differs.
  const ReduceOp op = uses_reduce_op(pattern.kind) ? pattern.op : ReduceOp::max;
  switch (op) {
    case ReduceOp::sum:
      // Dense sums reach p + 8; past the type's exact integers only one rank contributes.
      rule_ = p + 8 <= limit ? Rule::dense_sum : Rule::sparse_sum;
      return;
    case ReduceOp::prod: rule_ = Rule::prod; return;
    case ReduceOp::avg: {
      rule_ = Rule::avg;
      const bool power_of_two = (p & (p - 1)) == 0;
      exact_ = 2 * p <= limit && (!is_floating(pattern.datatype) || power_of_two);
      return;
    }
    case ReduceOp::min:
    case ReduceOp::max: break;
  }
  // Min and max pick an input, never make a new value; rounding into a narrow floating type
  // keeps the order, so these values need not be exact there.
  rule_ = Rule::extreme;
  extreme_offset_ = is_signed(pattern.datatype) ? 50 : 0;
  for (int key = 0; key < kExtremeKeys; ++key) {
    std::int64_t acc = extreme_value(0, key);
    for (int q = 1; q < std::min(pattern.nranks, kExtremeKeys); ++q)
      acc = op == ReduceOp::min ? std::min(acc, extreme_value(q, key))
                                : std::max(acc, extreme_value(q, key));
    extreme_[key] = acc;
  }
}

namespace {

template <typename T>
void fill_typed(const PatternRule& rule, std::span<std::byte> send) {
  auto* out = reinterpret_cast<T*>(send.data());
  for (std::size_t i = 0; i < rule.input_count(); ++i) out[i] = static_cast<T>(rule.input(i));
}

template <typename T>
std::uint64_t count_wrong_typed(const PatternRule& rule, std::span<const std::byte> result) {
  const auto* got = reinterpret_cast<const T*>(result.data());
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < rule.result_count(); ++i)
    wrong += got[i] != static_cast<T>(rule.expected(i));
  return wrong;
}

}  // namespace

void fill_input(const PatternRule& rule, std::span<std::byte> send) {
  visit_datatype(rule.datatype(), [&](auto zero) { fill_typed<decltype(zero)>(rule, send); });
}

std::uint64_t count_wrong(const PatternRule& rule, std::span<const std::byte> result) {
  return visit_datatype(rule.datatype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(rule, result);
  });
}

}  // namespace collbench
