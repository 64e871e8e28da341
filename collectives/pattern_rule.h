#pragma once
// The validation pattern as integer arithmetic that compiles for the host (pattern.cpp) and, in
// GPU backends, for the device, so both check against the same exact answers.
//
// Inputs are small integers, chosen per type, op and rank count so that every partial result of
// the reduction is an integer the element type holds exactly: the result is then the same in any
// order, and a wrong element is a real error, never rounding. Values vary along the buffer
// through a scrambled index, so a block delivered to the wrong rank, or out of order, shows up.
#include <cstddef>
#include <cstdint>

#include "collectives/collective.h"
#include "collectives/datatype.h"

#if defined(__CUDACC__)
#define COLLBENCH_HOST_DEVICE __host__ __device__
#else
#define COLLBENCH_HOST_DEVICE
#endif

namespace collbench {

struct PatternCase {
  CollectiveKind kind;
  DataType datatype;
  ReduceOp op;
  int rank;
  int nranks;
  Shape shape;
  int root = 0;  // of a collective that has_root()
};

// Trivially copyable, so a GPU backend passes it to its kernels by value.
class PatternRule {
 public:
  explicit PatternRule(const PatternCase& pattern);

  COLLBENCH_HOST_DEVICE DataType datatype() const { return datatype_; }
  COLLBENCH_HOST_DEVICE std::size_t input_count() const { return input_count_; }
  COLLBENCH_HOST_DEVICE std::size_t result_count() const { return result_count_; }
  // False where no input is exact: avg on floating types when p is not a power of two (the
  // library multiplies by a rounded 1/p), or when p·2 exceeds the type's exact integers.
  bool exact() const { return exact_; }

  // This rank's i-th input element and i-th result element.
  COLLBENCH_HOST_DEVICE std::int64_t input(std::size_t i) const {
    return value(rank_, first_input_ + i);
  }
  COLLBENCH_HOST_DEVICE std::int64_t expected(std::size_t i) const {
    const std::size_t g = first_result_ + i;
    switch (outcome_) {
      case Outcome::reduced: return reduced(g);
      case Outcome::gathered: return value(static_cast<int>(g / share_), g);
      case Outcome::exchanged:
        return value(static_cast<int>(g / share_),
                     static_cast<std::size_t>(rank_) * share_ + g % share_);
      case Outcome::copied_from_root: return value(root_, g);
    }
    return reduced(g);
  }

 private:
  enum class Rule : std::uint8_t { dense_sum, sparse_sum, prod, extreme, avg };
  static constexpr int kExtremeKeys = 101;

  COLLBENCH_HOST_DEVICE static std::uint64_t scramble(std::uint64_t g) {
    const std::uint64_t h = (g + 1) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }

  // Rank q's value at global element g.
  COLLBENCH_HOST_DEVICE std::int64_t value(int q, std::size_t g) const {
    const std::uint64_t h = scramble(g);
    const bool owner = g % static_cast<std::uint64_t>(nranks_) == static_cast<std::uint64_t>(q);
    switch (rule_) {
      case Rule::dense_sum:
        return static_cast<std::int64_t>((q + g) % 3 + (q == 0 ? h % 8 : 0));
      case Rule::sparse_sum: return owner ? static_cast<std::int64_t>(1 + h % 8) : 0;
      case Rule::prod: return owner ? static_cast<std::int64_t>(1 + h % 3) : 1;
      case Rule::avg: return owner ? nranks_ * static_cast<std::int64_t>(1 + h % 2) : 0;
      case Rule::extreme: break;
    }
    return extreme_value(q, h % kExtremeKeys);
  }

  COLLBENCH_HOST_DEVICE std::int64_t extreme_value(int q, std::uint64_t key) const {
    return static_cast<std::int64_t>((37 * static_cast<std::uint64_t>(q) + key) % kExtremeKeys) -
           extreme_offset_;
  }

  // The reduction over all ranks of global element g.
  COLLBENCH_HOST_DEVICE std::int64_t reduced(std::size_t g) const {
    const std::uint64_t h = scramble(g);
    switch (rule_) {
      case Rule::dense_sum: {
        // (q + g) % 3 over q = 0..p-1 runs through whole cycles of 0+1+2, then a partial one.
        std::int64_t sum = 3 * (nranks_ / 3);
        for (int j = 0; j < nranks_ % 3; ++j) sum += static_cast<std::int64_t>((g + j) % 3);
        return sum + static_cast<std::int64_t>(h % 8);
      }
      case Rule::sparse_sum: return static_cast<std::int64_t>(1 + h % 8);
      case Rule::prod: return static_cast<std::int64_t>(1 + h % 3);
      case Rule::avg: return static_cast<std::int64_t>(1 + h % 2);
      case Rule::extreme: break;
    }
    return extreme_[h % kExtremeKeys];
  }

  DataType datatype_;
  Rule rule_ = Rule::extreme;
  bool exact_ = true;
  Outcome outcome_ = Outcome::reduced;
  int rank_ = 0;
  int root_ = 0;
  int nranks_ = 1;
  std::size_t share_ = 1;
  std::size_t first_input_ = 0;
  std::size_t first_result_ = 0;
  std::size_t input_count_ = 0;
  std::size_t result_count_ = 0;
  std::int64_t extreme_offset_ = 0;
  std::int64_t extreme_[kExtremeKeys] = {};  // min or max over ranks, per key
};

}  // namespace collbench
