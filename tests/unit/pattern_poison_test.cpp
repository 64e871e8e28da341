// What validation can see: a result never written, an in-place buffer left as it was, and what
// another point left behind, for every collective, host type, op and rank count, on the host
// pattern (the device kernels run the same rule: pattern_kernels.cuh).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "collectives/datatype.h"
#include "collectives/pattern.h"

namespace collbench {
namespace {

constexpr int kPoisonRankCounts[] = {1, 2, 3, 4, 7, 40, 300};

PatternCase poison_case(CollectiveKind kind, DataType type, ReduceOp op, int rank, int p,
                        const Shape& shape, bool in_place = false, std::uint64_t seed = 0) {
  PatternCase pattern{kind, type, op, rank, p, shape, p - 1, in_place};
  pattern.seed = seed;
  return pattern;
}

std::string describe(const PatternCase& c) {
  return std::string(name(c.kind)) + " " + std::string(name(c.datatype)) + " " +
         std::string(name(c.op)) + " p=" + std::to_string(c.nranks) + " rank " +
         std::to_string(c.rank) + (c.in_place ? " in place" : "");
}

// 37 shares: more than one period of the paired rules, not a multiple of 4.
Shape shape_of(CollectiveKind kind, DataType type, int p, std::size_t share = 37) {
  return shape_for(kind, share * static_cast<std::size_t>(p) * size_of(type), size_of(type), p);
}

// The bits of `value` as the type stores it.
std::uint64_t bits_of(DataType type, std::int64_t value) {
  return visit_datatype(type, [&](auto zero) {
    const auto typed = static_cast<decltype(zero)>(value);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &typed, sizeof(typed));
    return bits;
  });
}

TEST(PatternPoison, NoInputOrResultTakesThePoisonsBits) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes())
      for (ReduceOp op : all_reduce_ops())
        for (int p : kPoisonRankCounts) {
          const Shape shape = shape_of(kind, type, p);
          for (int r : {0, p - 1}) {
            const PatternRule rule(poison_case(kind, type, op, r, p, shape));
            SCOPED_TRACE(describe(poison_case(kind, type, op, r, p, shape)));
            const std::uint64_t poison = rule.poison_bits();
            for (std::size_t i = 0; i < rule.input_count(); ++i)
              ASSERT_NE(bits_of(type, rule.input(i)), poison) << "input " << i;
            for (std::size_t i = 0; i < rule.result_count(); ++i)
              ASSERT_NE(bits_of(type, rule.expected(i)), poison) << "result " << i;
          }
        }
}

// Where the poison sits in the order of the type, a library that reduced into what its output
// held before makes it show: max meets the largest value, min the lowest.
TEST(PatternPoison, MinAndMaxArePoisonedWithTheEndThatWins) {
  for (DataType type : all_datatypes()) {
    const Shape shape = shape_of(CollectiveKind::allreduce, type, 2);
    const auto poison = [&](ReduceOp op) {
      return PatternRule(poison_case(CollectiveKind::allreduce, type, op, 0, 2, shape))
          .poison_bits();
    };
    EXPECT_EQ(poison(ReduceOp::max), highest_bits(type)) << name(type);
    EXPECT_EQ(poison(ReduceOp::min), lowest_bits(type)) << name(type);
    EXPECT_EQ(poison(ReduceOp::sum), is_floating(type) ? nan_bits(type)
                                     : is_signed(type) ? lowest_bits(type)
                                                       : highest_bits(type))
        << name(type);
    // What moves without reducing: the largest.
    EXPECT_EQ(PatternRule(poison_case(CollectiveKind::alltoall, type, ReduceOp::sum, 0, 2,
                                      shape_of(CollectiveKind::alltoall, type, 2)))
                  .poison_bits(),
              highest_bits(type));
  }
}

// Out of place, a result that was never written is wrong in every element it should have.
TEST(PatternPoison, AResultNeverWrittenIsWrongInEveryElement) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes())
      for (ReduceOp op : all_reduce_ops())
        for (int p : kPoisonRankCounts)
          for (int r = 0; r < std::min(p, 3); ++r) {
            const PatternCase c = poison_case(kind, type, op, r, p, shape_of(kind, type, p));
            SCOPED_TRACE(describe(c));
            const PatternRule rule(c);
            ASSERT_EQ(rule.poisoned_count(), c.shape.recv_count);
            std::vector<std::byte> recv(rule.poisoned_count() * size_of(type), std::byte{0});
            fill_poison(rule, recv);
            ASSERT_EQ(count_wrong(rule, recv), rule.result_count());
          }
}

// How many elements of an in-place result already hold their answer before the operation: a
// rank's own share of an allgather and a gather, its own block of an alltoall, a scatter's root's
// own share; nothing of a sum, product or average, whose inputs never equal its results, nor of
// a sendrecv, whose neighbour's input differs in every element.
std::size_t already_right(const PatternCase& c) {
  if (c.kind == CollectiveKind::allgather || c.kind == CollectiveKind::alltoall ||
      c.kind == CollectiveKind::gather || (c.kind == CollectiveKind::scatter && c.rank == c.root))
    return c.shape.count;
  return 0;
}

// In place, the buffer as validation leaves it before the operation (poison, then this rank's
// input at its place), left untouched: wrong in every element but those already right, in
// NCCL's layout and, for reduce-scatter, MPI's (the result at the start).
TEST(PatternPoison, AnInPlaceResultLeftAsItWasIsWrongWhereItShouldChange) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes())
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::avg})
        for (int p : {2, 3, 4, 7, 40}) {
          for (int r = 0; r < std::min(p, 3); ++r) {
            const PatternCase c = poison_case(kind, type, op, r, p, shape_of(kind, type, p), true);
            const PatternRule rule(c);
            if (!rule.exact()) continue;
            SCOPED_TRACE(describe(c));
            const std::size_t element = size_of(type);
            std::vector<std::byte> buffer(rule.poisoned_count() * element);
            fill_poison(rule, buffer);
            fill_input(rule, std::span(buffer).subspan(
                                 in_place_send_offset(kind, r, c.shape) * element,
                                 rule.input_count() * element));
            const std::size_t nccl = in_place_recv_offset(kind, r, c.shape) * element;
            EXPECT_EQ(count_wrong(rule, std::span(buffer).subspan(nccl)),
                      rule.result_count() - (rule.result_count() ? already_right(c) : 0));
            if (kind == CollectiveKind::reduce_scatter && op != ReduceOp::avg) {  // MPI: no avg
              EXPECT_EQ(count_wrong(rule, buffer), rule.result_count()) << "MPI's layout";
            }
          }
        }
}

// Min and max leave their result in one rank's input: left in place it is wrong on the others.
TEST(PatternPoison, AnInPlaceMinOrMaxLeftAsItWasIsWrongOnAllButOneRank) {
  for (DataType type : host_datatypes())
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max})
      for (int p : {2, 3, 7}) {
        const Shape shape = shape_of(CollectiveKind::allreduce, type, p);
        std::uint64_t wrong = 0;
        for (int r = 0; r < p; ++r) {
          const PatternRule rule(
              poison_case(CollectiveKind::allreduce, type, op, r, p, shape, true));
          std::vector<std::byte> buffer(rule.poisoned_count() * size_of(type));
          fill_input(rule, buffer);
          wrong += count_wrong(rule, buffer);
        }
        EXPECT_EQ(wrong, shape.count * (p - 1)) << name(type) << " " << name(op) << " p=" << p;
      }
}

// Only the root's input is read by a broadcast: in place, the others' buffers stay poisoned.
TEST(PatternPoison, ABroadcastReadsTheRootsInputAlone) {
  const int p = 4;
  const Shape shape = shape_of(CollectiveKind::broadcast, DataType::int32, p);
  for (int r = 0; r < p; ++r) {
    const PatternRule rule(
        poison_case(CollectiveKind::broadcast, DataType::int32, ReduceOp::sum, r, p, shape, true));
    EXPECT_EQ(rule.input_count(), r == p - 1 ? shape.send_count : 0u) << "rank " << r;
    EXPECT_EQ(rule.result_count(), r == p - 1 ? 0u : shape.recv_count) << "rank " << r;
  }
  // Out of place, a library that fills the root's output (NCCL) has it checked there.
  PatternCase root =
      poison_case(CollectiveKind::broadcast, DataType::int32, ReduceOp::sum, p - 1, p, shape);
  root.root_output = true;
  EXPECT_EQ(PatternRule(root).result_count(), shape.recv_count);
  root.in_place = true;
  EXPECT_EQ(PatternRule(root).result_count(), 0u);
}

PatternRule seeded(PatternCase pattern, std::uint64_t seed) {
  pattern.seed = seed;
  return PatternRule(pattern);
}

// The elements of `rule`'s result, exact, as they lie in a buffer.
std::vector<std::byte> result_of(const PatternRule& rule) {
  std::vector<std::byte> bytes(rule.result_count() * size_of(rule.datatype()));
  visit_datatype(rule.datatype(), [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < rule.result_count(); ++i) {
      const T value = static_cast<T>(rule.expected(i));
      std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
    }
  });
  return bytes;
}

// The result a larger point of the same curve left in the buffer (the rounds reshuffle the
// sizes, so larger points often run first) fails the smaller point's check, in most elements.
// With one seed for both, as the pattern was before it had one, a reduction's or broadcast's
// leftover passes whole: the negative control, which shows that the seed is what catches it.
TEST(PatternSeed, ALargerPointsResultFailsASmallerPointsCheck) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes())
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::max})
        for (int p : {2, 3, 4}) {
          const int r = holds_result(kind, 0, p - 1) ? 0 : p - 1;  // a rank with a result
          const PatternCase small = poison_case(kind, type, op, r, p, shape_of(kind, type, p, 64));
          const PatternCase large = poison_case(kind, type, op, r, p, shape_of(kind, type, p, 256));
          SCOPED_TRACE(describe(small));
          const PatternRule smaller = seeded(small, pattern_seed(small, 0));
          ASSERT_GT(smaller.result_count(), 0u);
          const auto left = result_of(seeded(large, pattern_seed(large, 0)));
          EXPECT_GE(2 * count_wrong(smaller, left), smaller.result_count());
          const Outcome outcome = describe(kind).outcome;
          if (outcome == Outcome::reduced || outcome == Outcome::copied_from_root) {
            EXPECT_EQ(count_wrong(seeded(small, 1), result_of(seeded(large, 1))), 0u)
                << "the control: one seed for both, the leftover passes";
          }
        }
}

// A seed from everything that tells points apart, and the check's repetition; the same for the
// same point on every rank and in every run.
TEST(PatternSeed, EachPointAndRepetitionDrawsItsOwn) {
  const PatternCase base =
      poison_case(CollectiveKind::allreduce, DataType::float32, ReduceOp::sum, 0, 4,
                  shape_of(CollectiveKind::allreduce, DataType::float32, 4));
  std::vector<PatternCase> variants(8, base);
  variants[1].kind = CollectiveKind::reduce;
  variants[2].datatype = DataType::int32;
  variants[3].op = ReduceOp::max;
  variants[4].nranks = 8;
  variants[5].shape = shape_of(CollectiveKind::allreduce, DataType::float32, 4, 38);
  variants[6].root = 1;
  variants[7].in_place = true;
  std::set<std::uint64_t> seeds;
  for (const PatternCase& variant : variants) seeds.insert(pattern_seed(variant, 0));
  seeds.insert(pattern_seed(base, 1));
  EXPECT_EQ(seeds.size(), variants.size() + 1);
  PatternCase other_rank = base;
  other_rank.rank = 3;
  other_rank.seed = 12345;
  EXPECT_EQ(pattern_seed(other_rank, 0), pattern_seed(base, 0));
}

}  // namespace
}  // namespace collbench
