#pragma once
// The validation pattern as integer arithmetic that compiles for the host (pattern.cpp) and, in
// GPU backends, for the device, so both check against the same exact answers.
//
// Inputs are small integers, chosen per type, op and rank count so that every partial result of
// the reduction is an integer the element type holds exactly: the result is then the same in any
// order, and a wrong element is a real error, never rounding. Values vary along the buffer
// through a scrambled index, so a block delivered to the wrong rank, or out of order, shows up,
// and with a seed, so that what one check or point left in the buffers is wrong for the next.
// Before each check the result region is poisoned with a value no input or result ever takes
// (poison_bits), so a result that was never written is wrong in every element; and a sum's,
// product's or average's inputs never equal its results, so an in-place result left as its input
// is wrong everywhere too. (A minimum or maximum is one rank's input: left in place, it is wrong
// on the other ranks.)
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
  bool in_place = false;
  // Which values the inputs take (pattern_seed): each check of each point draws its own.
  std::uint64_t seed = 0;
  // Out of place, a broadcast's root gets its own buffer in its output too, and is checked
  // there (Communicator::fills_broadcast_root_output).
  bool root_output = false;
};

// The seed of a check: from everything that tells the point apart (its `seed` aside), and the
// check's repetition.
std::uint64_t pattern_seed(const PatternCase& pattern, int repetition);

// Trivially copyable, so a GPU backend passes it to its kernels by value.
class PatternRule {
 public:
  explicit PatternRule(const PatternCase& pattern);

  COLLBENCH_HOST_DEVICE DataType datatype() const { return datatype_; }
  COLLBENCH_HOST_DEVICE std::size_t input_count() const { return input_count_; }
  COLLBENCH_HOST_DEVICE std::size_t result_count() const { return result_count_; }
  // The elements from the start of the buffer that holds the result (recvbuff out of place, the
  // one buffer in place) to poison before the inputs are written: the whole result, and in place
  // every element around this rank's input.
  COLLBENCH_HOST_DEVICE std::size_t poisoned_count() const { return poisoned_count_; }
  // One element of poison: a value of the type no input or result of this rule takes. For max
  // (and what moves without reducing) the type's largest, for min its lowest, so that a library
  // that reduced into what its output held before shows it; for sum, prod and avg a NaN of a
  // floating type, which every step keeps, and an integer type's end that no pattern value
  // reaches (the lowest of a signed type, the largest of an unsigned one).
  COLLBENCH_HOST_DEVICE std::uint64_t poison_bits() const { return poison_bits_; }
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
      case Outcome::shifted: return value((rank_ + nranks_ - 1) % nranks_, g);
    }
    return reduced(g);
  }

 private:
  // dense_sum: every rank gives 4..7, so any sum of two or more (8 and up) is no input.
  // paired_sum, paired_prod: where p·7 would pass the type's exact integers, two ranks give
  // each element 2 or 3 (the others 0 or 1): sums 4..6, products 4 or 6, no input again.
  // avg: one rank gives p or 2p, the others 0; the average 1 or 2. extreme: min, max and what
  // moves without reducing. exchanged: alltoall's, whose last bit says whether the sender's rank
  // is below its block's, so that in place no block a rank sends equals the one it receives
  // there (its own aside).
  enum class Rule : std::uint8_t { dense_sum, paired_sum, paired_prod, avg, extreme, exchanged };
  static constexpr int kExtremeKeys = 101;

  // SplitMix64's finaliser: every bit of the result depends on every bit of g, so the low bits
  // the rules use are not the index's own.
  COLLBENCH_HOST_DEVICE static std::uint64_t scramble(std::uint64_t g) {
    std::uint64_t z = g + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  COLLBENCH_HOST_DEVICE std::uint64_t hash(std::size_t g) const { return scramble(g ^ seed_); }

  // The two ranks that give element g of a paired rule (one rank twice, p = 1).
  COLLBENCH_HOST_DEVICE int first_giver(std::size_t g) const {
    return static_cast<int>(g % static_cast<std::uint64_t>(nranks_));
  }
  COLLBENCH_HOST_DEVICE int second_giver(std::size_t g) const {
    return static_cast<int>((g + 1) % static_cast<std::uint64_t>(nranks_));
  }

  // Rank q's value at global element g.
  COLLBENCH_HOST_DEVICE std::int64_t value(int q, std::size_t g) const {
    const std::uint64_t h = hash(g);
    switch (rule_) {
      case Rule::dense_sum:
        // Rank 0's scrambled term keeps elements apart where the others' cycle sums alike.
        return 4 + static_cast<std::int64_t>(q == 0 ? h % 4 : (q + g + seed_) % 4);
      case Rule::paired_sum:
        return (q == first_giver(g) ? 2 + static_cast<std::int64_t>(h & 1) : 0) +
               (q == second_giver(g) ? 2 + static_cast<std::int64_t>((h >> 1) & 1) : 0);
      case Rule::paired_prod:
        return (q == first_giver(g) ? 2 + static_cast<std::int64_t>(h & 1) : 1) *
               (q == second_giver(g) ? 2 : 1);
      case Rule::avg:
        return q == first_giver(g) ? nranks_ * static_cast<std::int64_t>(1 + h % 2) : 0;
      case Rule::exchanged:
        return extreme_low_ +
               2 * static_cast<std::int64_t>((37 * static_cast<std::uint64_t>(q) + h) % 50) +
               (static_cast<std::size_t>(q) < g / share_ ? 1 : 0);
      case Rule::extreme: break;
    }
    return extreme_value(q, h % kExtremeKeys);
  }

  COLLBENCH_HOST_DEVICE std::int64_t extreme_value(int q, std::uint64_t key) const {
    return static_cast<std::int64_t>((37 * static_cast<std::uint64_t>(q) + key) % kExtremeKeys) +
           extreme_low_;
  }

  // The reduction over all ranks of global element g.
  COLLBENCH_HOST_DEVICE std::int64_t reduced(std::size_t g) const {
    const std::uint64_t h = hash(g);
    switch (rule_) {
      case Rule::dense_sum: {
        // Ranks 1..p-1 give 4 + (q + c) % 4: whole cycles of 0+1+2+3, then a partial one.
        const std::uint64_t c = g + seed_;
        const int others = nranks_ - 1;
        std::int64_t sum = 4 * static_cast<std::int64_t>(nranks_) +
                           static_cast<std::int64_t>(h % 4) + 6 * (others / 4);
        for (int j = 0; j < others % 4; ++j)
          sum += static_cast<std::int64_t>((static_cast<std::uint64_t>(1 + j) + c) % 4);
        return sum;
      }
      case Rule::paired_sum:
        return 4 + static_cast<std::int64_t>(h & 1) + static_cast<std::int64_t>((h >> 1) & 1);
      case Rule::paired_prod: return 2 * (2 + static_cast<std::int64_t>(h & 1));
      case Rule::avg: return static_cast<std::int64_t>(1 + h % 2);
      case Rule::extreme:
      case Rule::exchanged: break;
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
  std::uint64_t seed_ = 0;
  std::uint64_t poison_bits_ = 0;
  std::size_t share_ = 1;
  std::size_t first_input_ = 0;
  std::size_t first_result_ = 0;
  std::size_t input_count_ = 0;
  std::size_t result_count_ = 0;
  std::size_t poisoned_count_ = 0;
  std::int64_t extreme_low_ = 0;
  std::int64_t extreme_[kExtremeKeys] = {};  // min or max over ranks, per key
};

}  // namespace collbench
