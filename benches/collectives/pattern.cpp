#include "pattern.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace collbench {
namespace {

// Scrambles an element index so that results vary along the buffer without a period: a block
// delivered to the wrong rank, or elements out of order, then always shows up as wrong.
std::uint64_t scramble(std::size_t g) {
  std::uint64_t h = (g + 1) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

// Rank q's value at global element g: small integers, so sums and products are exact in every
// type and order. The result over ranks depends on g through scramble(g) and g mod 3 only, so
// the expected value is a small table lookup.
struct InputRule {
  ReduceOp op;
  int nranks;
  bool is_signed;

  std::int64_t value(int q, std::size_t g) const {
    const std::uint64_t h = scramble(g);
    switch (op) {
      case ReduceOp::sum:
        return static_cast<std::int64_t>((q + g) % 3 + (q == 0 ? h % 8 : 0));
      case ReduceOp::prod:
        return g % static_cast<std::size_t>(nranks) == std::size_t(q) ? 1 + h % 3 : 1;
      default: return min_max_value(q, h % 101);
    }
  }

  std::int64_t min_max_value(int q, std::uint64_t key) const {
    const auto v = static_cast<std::int64_t>((37 * std::uint64_t(q) + key) % 101);
    return is_signed ? v - 50 : v;
  }
};

template <typename T>
T reduce(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::sum: return static_cast<T>(a + b);
    case ReduceOp::prod: return static_cast<T>(a * b);
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::max: return std::max(a, b);
  }
  return a;
}

template <typename T>
T reduce_over_ranks(const InputRule& rule, auto value_of_rank) {
  T acc = static_cast<T>(value_of_rank(0));
  for (int q = 1; q < rule.nranks; ++q) acc = reduce(rule.op, acc, static_cast<T>(value_of_rank(q)));
  return acc;
}

// The exact reduction of every element, from tables built once per check.
template <typename T>
class ExpectedResult {
 public:
  explicit ExpectedResult(const InputRule& rule) : rule_(rule) {
    if (rule.op == ReduceOp::sum)
      for (std::size_t k = 0; k < 3; ++k)
        table_.push_back(reduce_over_ranks<T>(rule, [&](int q) { return (q + k) % 3; }));
    if (rule.op == ReduceOp::min || rule.op == ReduceOp::max)
      for (std::uint64_t key = 0; key < 101; ++key)
        table_.push_back(reduce_over_ranks<T>(rule, [&](int q) { return rule.min_max_value(q, key); }));
  }

  T at(std::size_t g) const {
    const std::uint64_t h = scramble(g);
    switch (rule_.op) {
      case ReduceOp::sum: return static_cast<T>(table_[g % 3] + static_cast<T>(h % 8));
      case ReduceOp::prod: return static_cast<T>(1 + h % 3);
      default: return table_[h % 101];
    }
  }

 private:
  InputRule rule_;
  std::vector<T> table_;
};

InputRule rule_for(const PatternCase& pattern, bool is_signed) {
  // Allgather reduces nothing; its inputs follow the min/max rule to vary across elements.
  const ReduceOp op = uses_reduce_op(pattern.kind) ? pattern.op : ReduceOp::max;
  return InputRule{op, pattern.nranks, is_signed};
}

// Global index of this rank's first input element.
std::size_t first_input_index(const PatternCase& pattern) {
  return pattern.kind == CollectiveKind::allgather
             ? static_cast<std::size_t>(pattern.rank) * pattern.shape.count
             : 0;
}

template <typename T>
void fill_typed(const PatternCase& pattern, std::span<std::byte> send) {
  const InputRule rule = rule_for(pattern, std::is_signed_v<T>);
  auto* out = reinterpret_cast<T*>(send.data());
  const std::size_t first = first_input_index(pattern);
  for (std::size_t i = 0; i < pattern.shape.send_count; ++i)
    out[i] = static_cast<T>(rule.value(pattern.rank, first + i));
}

template <typename T>
std::uint64_t count_wrong_typed(const PatternCase& pattern, std::span<const std::byte> result) {
  const InputRule rule = rule_for(pattern, std::is_signed_v<T>);
  const auto* got = reinterpret_cast<const T*>(result.data());
  const std::size_t n = pattern.shape.recv_count;
  std::uint64_t wrong = 0;
  if (pattern.kind == CollectiveKind::allgather) {
    const std::size_t share = pattern.shape.count;
    for (std::size_t g = 0; g < n; ++g)
      wrong += got[g] != static_cast<T>(rule.value(static_cast<int>(g / share), g));
    return wrong;
  }
  const ExpectedResult<T> expected(rule);
  const std::size_t first = pattern.kind == CollectiveKind::reduce_scatter
                                ? static_cast<std::size_t>(pattern.rank) * pattern.shape.count
                                : 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != expected.at(first + i);
  return wrong;
}

}  // namespace

void fill_input(const PatternCase& pattern, std::span<std::byte> send) {
  visit_datatype(pattern.datatype, [&](auto zero) { fill_typed<decltype(zero)>(pattern, send); });
}

std::uint64_t count_wrong(const PatternCase& pattern, std::span<const std::byte> result) {
  return visit_datatype(pattern.datatype, [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(pattern, result);
  });
}

}  // namespace collbench
