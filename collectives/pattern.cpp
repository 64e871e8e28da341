#include "pattern.h"

#include <algorithm>

namespace collbench {

std::uint64_t pattern_seed(const PatternCase& pattern, int repetition) {
  // FNV-1a over the fields, in a fixed order: the same on every rank and in every run.
  std::uint64_t hash = 0xcbf29ce484222325ull;
  const auto mix = [&](std::uint64_t value) {
    for (int byte = 0; byte < 8; ++byte, value >>= 8) {
      hash ^= value & 0xff;
      hash *= 0x100000001b3ull;
    }
  };
  mix(static_cast<std::uint64_t>(pattern.kind));
  mix(static_cast<std::uint64_t>(pattern.datatype));
  mix(static_cast<std::uint64_t>(pattern.op));
  mix(static_cast<std::uint64_t>(pattern.nranks));
  mix(pattern.shape.size_bytes);
  mix(pattern.shape.count);
  mix(static_cast<std::uint64_t>(pattern.root));
  mix(pattern.in_place);
  mix(static_cast<std::uint64_t>(repetition));
  return hash;
}

PatternRule::PatternRule(const PatternCase& pattern)
    : datatype_(pattern.datatype),
      outcome_(describe(pattern.kind).outcome),
      rank_(pattern.rank),
      root_(pattern.root),
      nranks_(pattern.nranks),
      seed_(scramble(pattern.seed)),
      share_(std::max<std::size_t>(pattern.shape.count, 1)),
      first_input_(in_place_send_offset(pattern.kind, pattern.rank, pattern.shape)),
      first_result_(in_place_recv_offset(pattern.kind, pattern.rank, pattern.shape)),
      input_count_(holds_input(pattern.kind, pattern.rank, pattern.root) ? pattern.shape.send_count
                                                                          : 0),
      result_count_(holds_result(pattern.kind, pattern.rank, pattern.root) ||
                            (pattern.root_output && !pattern.in_place && pattern.rank == pattern.root)
                        ? pattern.shape.recv_count
                        : 0),
      poisoned_count_(pattern.in_place
                          ? std::max(pattern.shape.send_count, pattern.shape.recv_count)
                          : pattern.shape.recv_count) {
  const std::int64_t limit = exact_integer_limit(pattern.datatype);
  const std::int64_t p = pattern.nranks;
  // What reduces nothing moves inputs; they follow the min/max rule to vary across elements and
  // ranks, so a block from the wrong rank, or one left unmoved, differs.
  const ReduceOp op = uses_reduce_op(pattern.kind) ? pattern.op : ReduceOp::max;
  const DataType type = pattern.datatype;
  // Sums and products never reach either end of an integer type, nor a negative value.
  poison_bits_ = is_floating(type) ? nan_bits(type)
                 : is_signed(type) ? lowest_bits(type)
                                   : highest_bits(type);
  switch (op) {
    case ReduceOp::sum:
      // Dense sums reach 7p; from the type's exact integers on (its largest included, an
      // unsigned type's poison) two ranks give each element.
      rule_ = 7 * p < limit ? Rule::dense_sum : Rule::paired_sum;
      return;
    case ReduceOp::prod: rule_ = Rule::paired_prod; return;
    case ReduceOp::avg: {
      rule_ = Rule::avg;
      const bool power_of_two = (p & (p - 1)) == 0;
      exact_ = 2 * p <= limit && (!is_floating(type) || power_of_two);
      return;
    }
    case ReduceOp::min: poison_bits_ = lowest_bits(type); break;
    case ReduceOp::max: poison_bits_ = highest_bits(type); break;
  }
  // Min and max pick an input, never make a new value; rounding into a narrow floating type
  // keeps the order, so these values need not be exact there. They lie in -50..50 for a signed
  // type and 1..101 for an unsigned one, clear of each type's ends (its poison).
  extreme_low_ = is_signed(type) ? -50 : 1;
  if (outcome_ == Outcome::exchanged) {
    rule_ = Rule::exchanged;
    return;
  }
  rule_ = Rule::extreme;
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

void fill_poison(const PatternRule& rule, std::span<std::byte> result) {
  // The low size_of(type) bytes of the bits, as the host (x86-64, AArch64: little-endian)
  // stores an unsigned integer of that size.
  const auto fill = [&](auto bits) {
    std::fill_n(reinterpret_cast<decltype(bits)*>(result.data()), rule.poisoned_count(), bits);
  };
  const std::uint64_t bits = rule.poison_bits();
  switch (size_of(rule.datatype())) {
    case 1: return fill(static_cast<std::uint8_t>(bits));
    case 2: return fill(static_cast<std::uint16_t>(bits));
    case 4: return fill(static_cast<std::uint32_t>(bits));
    default: return fill(bits);
  }
}

void fill_input(const PatternRule& rule, std::span<std::byte> send) {
  visit_datatype(rule.datatype(), [&](auto zero) { fill_typed<decltype(zero)>(rule, send); });
}

std::uint64_t count_wrong(const PatternRule& rule, std::span<const std::byte> result) {
  return visit_datatype(rule.datatype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(rule, result);
  });
}

}  // namespace collbench
