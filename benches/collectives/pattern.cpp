#include "pattern.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace collbench {
namespace {

// Rank q's value at global element g. It depends on g only through g mod period(), so the
// reduction over ranks is a small table computed once.
struct InputRule {
  ReduceOp op;
  int nranks;
  bool is_signed;

  std::size_t period() const {
    switch (op) {
      case ReduceOp::sum: return 3;
      case ReduceOp::prod: return static_cast<std::size_t>(nranks);
      default: return 101;
    }
  }

  std::int64_t value(int q, std::size_t g) const {
    switch (op) {
      case ReduceOp::sum: return static_cast<std::int64_t>((q + g) % 3);
      case ReduceOp::prod: return g % static_cast<std::size_t>(nranks) == std::size_t(q) ? 2 : 1;
      default: {
        const auto v = static_cast<std::int64_t>((37 * std::size_t(q) + 11 * g) % 101);
        return is_signed ? v - 50 : v;
      }
    }
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
std::vector<T> reduced_table(const InputRule& rule) {
  std::vector<T> table(rule.period());
  for (std::size_t k = 0; k < table.size(); ++k) {
    T acc = static_cast<T>(rule.value(0, k));
    for (int q = 1; q < rule.nranks; ++q) acc = reduce(rule.op, acc, static_cast<T>(rule.value(q, k)));
    table[k] = acc;
  }
  return table;
}

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
  const std::vector<T> table = reduced_table<T>(rule);
  const std::size_t first = pattern.kind == CollectiveKind::reduce_scatter
                                ? static_cast<std::size_t>(pattern.rank) * pattern.shape.count
                                : 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != table[(first + i) % table.size()];
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
