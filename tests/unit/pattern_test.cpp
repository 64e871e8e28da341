#include "collectives/pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/collective.h"
#include "collectives/datatype.h"

namespace collbench {
namespace {

constexpr int kRankCounts[] = {1, 2, 3, 4, 7};

// One reduction step in T, wrapping like C++ unsigned arithmetic for integers (conversion back
// to a signed type is modular since C++20), so the oracle never relies on signed overflow.
template <typename T>
T host_reduce(ReduceOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case ReduceOp::prod: return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      case ReduceOp::min: return a < b ? a : b;
      case ReduceOp::max: return a < b ? b : a;
    }
  } else {
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: return a + b;
      case ReduceOp::prod: return a * b;
      case ReduceOp::min: return a < b ? a : b;
      case ReduceOp::max: return a < b ? b : a;
    }
  }
  ADD_FAILURE() << "unknown op";
  return a;
}

template <typename T>
std::vector<std::byte> to_bytes(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> from_bytes(const std::vector<std::byte>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// The root the rooted collectives are tested with: the last rank, so that a rule that took rank 0
// for the root shows.
int root_of(int nranks) { return nranks - 1; }

PatternRule case_for(CollectiveKind kind, DataType type, ReduceOp op, int rank, int nranks,
                     const Shape& shape) {
  return PatternRule(PatternCase{kind, type, op, rank, nranks, shape, root_of(nranks)});
}

// Each rank's input as fill_input writes it, after poisoning the buffer so that an element it
// forgets to write shows up; empty for a rank whose input the collective does not read.
template <typename T>
std::vector<std::vector<T>> fill_all(CollectiveKind kind, DataType type, ReduceOp op, int p,
                                     const Shape& shape) {
  std::vector<std::vector<T>> inputs;
  for (int q = 0; q < p; ++q) {
    const PatternRule rule = case_for(kind, type, op, q, p, shape);
    std::vector<std::byte> send(shape.send_count * sizeof(T), std::byte{0x5A});
    fill_input(rule, send);
    send.resize(rule.input_count() * sizeof(T));
    inputs.push_back(from_bytes<T>(send));
  }
  return inputs;
}

// Rank r's exact result, computed on the host from every rank's input.
template <typename T>
std::vector<T> expected_result(CollectiveKind kind, ReduceOp op, int r, int p, const Shape& shape,
                               const std::vector<std::vector<T>>& inputs, bool reverse = false) {
  std::vector<T> result(shape.recv_count);
  const std::size_t share = shape.count;
  for (std::size_t i = 0; i < shape.recv_count; ++i) {
    switch (kind) {
      case CollectiveKind::allgather:
      case CollectiveKind::gather:
        result[i] = inputs[i / share][i % share];
        break;
      case CollectiveKind::scatter:
        result[i] = inputs[root_of(p)][static_cast<std::size_t>(r) * share + i];
        break;
      case CollectiveKind::sendrecv:
        result[i] = inputs[(r + p - 1) % p][i];
        break;
      case CollectiveKind::alltoall:
        result[i] = inputs[i / share][static_cast<std::size_t>(r) * share + i % share];
        break;
      case CollectiveKind::broadcast:
        result[i] = inputs[root_of(p)][i];
        break;
      case CollectiveKind::allreduce:
      case CollectiveKind::allreduce_hier:
      case CollectiveKind::reduce:
      case CollectiveKind::reduce_scatter: {
        const std::size_t g =
            kind == CollectiveKind::reduce_scatter ? static_cast<std::size_t>(r) * share + i : i;
        if (!reverse) {
          T acc = inputs[0][g];
          for (int q = 1; q < p; ++q) acc = host_reduce(op, acc, inputs[q][g]);
          result[i] = op == ReduceOp::avg ? static_cast<T>(acc / static_cast<T>(p)) : acc;
        } else {
          T acc = inputs[p - 1][g];
          for (int q = p - 2; q >= 0; --q) acc = host_reduce(op, acc, inputs[q][g]);
          result[i] = op == ReduceOp::avg ? static_cast<T>(acc / static_cast<T>(p)) : acc;
        }
        break;
      }
    }
  }
  return result;
}

std::string describe(CollectiveKind kind, DataType type, ReduceOp op, int p, const Shape& shape) {
  return std::string(name(kind)) + " " + std::string(name(type)) + " " + std::string(name(op)) +
         " p=" + std::to_string(p) + " count=" + std::to_string(shape.count);
}

// Shares of 1 element (the smallest), 250 elements (more than one period of every input rule,
// not a multiple of 3 so sum's period crosses block boundaries) and 37.
std::vector<Shape> shapes_to_test(CollectiveKind kind, std::size_t element, int p) {
  std::vector<Shape> shapes;
  for (std::size_t share : {std::size_t{1}, std::size_t{37}, std::size_t{250}}) {
    const bool whole = kind == CollectiveKind::allreduce || has_root(kind);
    const std::size_t requested = whole
                                      ? (share * static_cast<std::size_t>(p) + 3) * element
                                      : share * static_cast<std::size_t>(p) * element + element - 1;
    shapes.push_back(shape_for(kind, requested, element, p));
  }
  return shapes;
}

template <typename T>
void check_case(CollectiveKind kind, DataType type, ReduceOp op, int p, const Shape& shape) {
  SCOPED_TRACE(describe(kind, type, op, p, shape));
  ASSERT_GT(shape.count, 0u);
  const auto inputs = fill_all<T>(kind, type, op, p, shape);

  for (int r = 0; r < p; ++r) {
    const PatternRule pattern = case_for(kind, type, op, r, p, shape);
    if (!holds_result(kind, r, root_of(p))) {
      EXPECT_EQ(pattern.result_count(), 0u) << "rank " << r << " holds no result to check";
      continue;
    }
    std::vector<T> result = expected_result<T>(kind, op, r, p, shape, inputs);
    ASSERT_EQ(result.size(), shape.recv_count);
    auto bytes = to_bytes(result);
    EXPECT_EQ(count_wrong(pattern, bytes), 0u) << "rank " << r;

    // One element changed: exactly one wrong. Try the first, a middle and the last element.
    for (std::size_t at : {std::size_t{0}, shape.recv_count / 2, shape.recv_count - 1}) {
      std::vector<T> changed = result;
      changed[at] = static_cast<T>(changed[at] + 1);
      ASSERT_NE(changed[at], result[at]);
      EXPECT_EQ(count_wrong(pattern, to_bytes(changed)), 1u) << "rank " << r << " element " << at;
    }
    // Every element changed: all wrong.
    std::vector<T> all_changed = result;
    for (auto& value : all_changed) value = static_cast<T>(value + 1);
    EXPECT_EQ(count_wrong(pattern, to_bytes(all_changed)), shape.recv_count) << "rank " << r;
  }
}

template <typename T>
void check_inputs_exact(CollectiveKind kind, DataType type, ReduceOp op, int p,
                        const Shape& shape) {
  SCOPED_TRACE(describe(kind, type, op, p, shape));
  const auto inputs = fill_all<T>(kind, type, op, p, shape);
  // Every input is a small integer, even in floating point.
  for (const auto& input : inputs)
    for (T value : input) {
      const double v = static_cast<double>(value);
      ASSERT_EQ(v, std::trunc(v));
      ASSERT_LE(std::fabs(v), 128.0);
    }
  if (!uses_reduce_op(kind)) return;
  for (int r = 0; r < p; ++r) {
    const auto forward = expected_result<T>(kind, op, r, p, shape, inputs);
    const auto backward = expected_result<T>(kind, op, r, p, shape, inputs, /*reverse=*/true);
    // The reduction is the same in any order.
    ASSERT_EQ(forward, backward) << "rank " << r;
    for (T value : forward) {
      const double v = static_cast<double>(value);
      ASSERT_EQ(v, std::trunc(v));
      if (op == ReduceOp::sum) {
        // every rank gives 4..7, or two ranks 2 or 3 each: integers in 4..7p.
        ASSERT_GE(v, 4.0);
        ASSERT_LE(v, 7.0 * p);
      }
      if (op == ReduceOp::prod) {
        // two ranks give 2 or 3 and 2, the others 1
        ASSERT_TRUE(v == 4.0 || v == 6.0) << v;
      }
    }
  }
}

TEST(Pattern, HostReferenceResultsHaveNoWrongElements) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes())
      for (ReduceOp op : all_reduce_ops())
        for (int p : kRankCounts)
          for (const Shape& shape : shapes_to_test(kind, size_of(type), p))
            visit_datatype(type, [&](auto zero) {
              check_case<decltype(zero)>(kind, type, op, p, shape);
            });
}

TEST(Pattern, InputsAreSmallIntegersAndReduceExactlyInAnyOrder) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes())
      for (ReduceOp op : all_reduce_ops())
        for (int p : kRankCounts)
          for (const Shape& shape : shapes_to_test(kind, size_of(type), p))
            visit_datatype(type, [&](auto zero) {
              check_inputs_exact<decltype(zero)>(kind, type, op, p, shape);
            });
}

TEST(Pattern, FloatSumInputsAndResultsAreSmallIntegers) {
  for (DataType type : {DataType::float32, DataType::float64})
    for (int p : kRankCounts) {
      const Shape shape = shape_for(CollectiveKind::allreduce, 300 * size_of(type), size_of(type), p);
      visit_datatype(type, [&](auto zero) {
        using T = decltype(zero);
        const auto inputs = fill_all<T>(CollectiveKind::allreduce, type, ReduceOp::sum, p, shape);
        bool saw_nonzero = false;
        for (const auto& input : inputs)
          for (T value : input) {
            EXPECT_TRUE(value >= T{4} && value <= T{7} && value == std::round(value)) << value;
            saw_nonzero = saw_nonzero || value != T{0};
          }
        EXPECT_TRUE(saw_nonzero);
        const auto sums = expected_result<T>(CollectiveKind::allreduce, ReduceOp::sum, 0, p, shape,
                                             inputs);
        for (T sum : sums) {
          EXPECT_EQ(sum, std::round(sum));
          EXPECT_GE(sum, T(4 * p));
          EXPECT_LE(sum, T(7 * p));
        }
      });
    }
}

TEST(Pattern, FillInputWritesExactlySendCountElements) {
  for (CollectiveKind kind : all_collectives())
    for (DataType type : host_datatypes()) {
      const int p = 3;
      const std::size_t element = size_of(type);
      const Shape shape = shape_for(kind, 30 * p * element, element, p);
      ASSERT_GT(shape.send_count, 0u);
      const std::size_t bytes = shape.send_count * element;
      std::vector<std::byte> send(bytes + 64, std::byte{0x5A});
      fill_input(case_for(kind, type, ReduceOp::sum, 1, p, shape), std::span(send).first(bytes));
      for (std::size_t b = bytes; b < send.size(); ++b)
        ASSERT_EQ(send[b], std::byte{0x5A}) << name(kind) << " " << name(type) << " byte " << b;
    }
}

// A backend that skipped the communication and left each rank's input as its result must be
// caught: the inputs differ from the reduced result somewhere for every op once p >= 2.
TEST(Pattern, AnUnreducedInputIsWrong) {
  for (DataType type : host_datatypes())
    for (ReduceOp op : all_reduce_ops())
      for (int p : {2, 3, 4, 7}) {
        const std::size_t element = size_of(type);
        const Shape shape = shape_for(CollectiveKind::allreduce, 300 * element, element, p);
        for (int r = 0; r < p; ++r) {
          std::vector<std::byte> buffer(shape.send_count * element);
          const PatternRule pattern =
              case_for(CollectiveKind::allreduce, type, op, r, p, shape);
          fill_input(pattern, buffer);
          EXPECT_GT(count_wrong(pattern, buffer), 0u)
              << name(type) << " " << name(op) << " p=" << p << " rank " << r;
        }
      }
}

// Each rank of a reduce-scatter is checked against its own block, not block 0.
TEST(Pattern, ReduceScatterChecksTheRanksOwnBlock) {
  const int p = 4;
  const Shape shape = shape_for(CollectiveKind::reduce_scatter, 250 * p * 4, 4, p);
  ASSERT_EQ(shape.count, 250u);
  const auto inputs = fill_all<float>(CollectiveKind::reduce_scatter, DataType::float32,
                                      ReduceOp::sum, p, shape);
  const auto block0 =
      expected_result<float>(CollectiveKind::reduce_scatter, ReduceOp::sum, 0, p, shape, inputs);
  const PatternRule rank1 =
      case_for(CollectiveKind::reduce_scatter, DataType::float32, ReduceOp::sum, 1, p, shape);
  EXPECT_GT(count_wrong(rank1, to_bytes(block0)), 0u);
}

// A reduce-scatter that delivers another rank's block (a wrong offset in a backend) must be
// caught with the default op (sum) at every rank count, 3 included: the contract tests run with
// 2, 3 and 4 ranks. The sum over ranks of (q + g) % 3 is the same at every g when p is a multiple
// of 3; rank 0's scrambled extra term is what keeps the blocks apart there.
TEST(Pattern, ReduceScatterWrongBlockIsCaughtAtEveryRankCount) {
  for (int p : {2, 3, 4, 6, 7}) {
    const Shape shape = shape_for(CollectiveKind::reduce_scatter, 250 * p * 4, 4, p);
    ASSERT_EQ(shape.count, 250u);
    const auto inputs = fill_all<float>(CollectiveKind::reduce_scatter, DataType::float32,
                                        ReduceOp::sum, p, shape);
    const auto block0 =
        expected_result<float>(CollectiveKind::reduce_scatter, ReduceOp::sum, 0, p, shape, inputs);
    for (int r = 1; r < p; ++r) {
      const PatternRule pattern =
          case_for(CollectiveKind::reduce_scatter, DataType::float32, ReduceOp::sum, r, p, shape);
      EXPECT_GT(count_wrong(pattern, to_bytes(block0)), 0u)
          << "reduce_scatter float sum p=" << p << ": rank " << r
          << " given rank 0's block passes validation";
    }
  }
}

// An alltoall that delivers a rank's block to the wrong peer, or the right block from the wrong
// place, is wrong in every element of it.
TEST(Pattern, AlltoallChecksWhichBlockCameFromWhom) {
  const int p = 4;
  const Shape shape = shape_for(CollectiveKind::alltoall, 50 * p * 4, 4, p);
  ASSERT_EQ(shape.count, 50u);
  const auto inputs =
      fill_all<std::int32_t>(CollectiveKind::alltoall, DataType::int32, ReduceOp::sum, p, shape);
  const PatternRule rank2 =
      case_for(CollectiveKind::alltoall, DataType::int32, ReduceOp::sum, 2, p, shape);
  auto result =
      expected_result<std::int32_t>(CollectiveKind::alltoall, ReduceOp::sum, 2, p, shape, inputs);
  ASSERT_EQ(count_wrong(rank2, to_bytes(result)), 0u);
  auto swapped = result;
  std::swap_ranges(swapped.begin(), swapped.begin() + 50, swapped.begin() + 50);
  EXPECT_EQ(count_wrong(rank2, to_bytes(swapped)), 100u);
  // Rank 2 given what rank 1 should have: block q of rank q's input sent to the wrong peer.
  const auto rank1s =
      expected_result<std::int32_t>(CollectiveKind::alltoall, ReduceOp::sum, 1, p, shape, inputs);
  EXPECT_EQ(count_wrong(rank2, to_bytes(rank1s)), shape.recv_count);
}

// A broadcast's result is the root's buffer: the buffer another rank would send as root, or
// the poison left in place (nothing received), is wrong everywhere. Only the root has an input.
TEST(Pattern, BroadcastChecksTheRootsBufferArrived) {
  for (int p : {2, 3, 4}) {
    const Shape shape = shape_for(CollectiveKind::broadcast, 120 * 4, 4, p);
    const auto inputs = fill_all<float>(CollectiveKind::broadcast, DataType::float32,
                                        ReduceOp::sum, p, shape);
    for (int r = 0; r + 1 < p; ++r) {
      SCOPED_TRACE("p=" + std::to_string(p) + " rank " + std::to_string(r));
      EXPECT_TRUE(inputs[r].empty()) << "a rank that is not the root has no input";
      const PatternRule pattern =
          case_for(CollectiveKind::broadcast, DataType::float32, ReduceOp::sum, r, p, shape);
      EXPECT_EQ(count_wrong(pattern, to_bytes(inputs[root_of(p)])), 0u);
      PatternCase as_root{CollectiveKind::broadcast, DataType::float32, ReduceOp::sum, r, p, shape};
      as_root.root = r;
      std::vector<std::byte> other(shape.send_count * 4);
      fill_input(PatternRule(as_root), other);
      EXPECT_EQ(count_wrong(pattern, other), shape.recv_count) << "another rank's buffer passes";
      std::vector<std::byte> poisoned(shape.recv_count * 4);
      fill_poison(pattern, poisoned);
      EXPECT_EQ(count_wrong(pattern, poisoned), shape.recv_count) << "nothing received passes";
    }
  }
}

// Only the root holds a reduce's result; the sum is the allreduce's.
TEST(Pattern, ReduceIsCheckedAtItsRootOnly) {
  const int p = 3;
  const Shape shape = shape_for(CollectiveKind::reduce, 60 * 4, 4, p);
  const auto inputs =
      fill_all<float>(CollectiveKind::reduce, DataType::float32, ReduceOp::sum, p, shape);
  const auto sum =
      expected_result<float>(CollectiveKind::allreduce, ReduceOp::sum, 0, p, shape, inputs);
  const PatternRule root =
      case_for(CollectiveKind::reduce, DataType::float32, ReduceOp::sum, root_of(p), p, shape);
  EXPECT_EQ(root.result_count(), shape.recv_count);
  EXPECT_EQ(count_wrong(root, to_bytes(sum)), 0u);
  EXPECT_GT(count_wrong(root, to_bytes(inputs[root_of(p)])), 0u);
  EXPECT_EQ(case_for(CollectiveKind::reduce, DataType::float32, ReduceOp::sum, 0, p, shape)
                .result_count(),
            0u);
}

// An allgather result with two ranks' shares swapped is wrong in both shares: in all but the
// elements where the two ranks' values meet by chance, one in a hundred (101 values a rank).
TEST(Pattern, AllgatherChecksTheOrderOfShares) {
  const int p = 4;
  const Shape shape = shape_for(CollectiveKind::allgather, 50 * p * 4, 4, p);
  ASSERT_EQ(shape.count, 50u);
  const auto inputs =
      fill_all<std::int32_t>(CollectiveKind::allgather, DataType::int32, ReduceOp::sum, p, shape);
  auto result =
      expected_result<std::int32_t>(CollectiveKind::allgather, ReduceOp::sum, 0, p, shape, inputs);
  std::swap_ranges(result.begin(), result.begin() + 50, result.begin() + 50);
  const PatternRule pattern =
      case_for(CollectiveKind::allgather, DataType::int32, ReduceOp::sum, 2, p, shape);
  const std::uint64_t wrong = count_wrong(pattern, to_bytes(result));
  EXPECT_GE(wrong, 90u);
  EXPECT_LE(wrong, 100u);
}

// Every input and every partial result, in either order, stays within the integers the type
// holds exactly, for the reduced-precision GPU types too: no rounding can make a wrong element.
TEST(PatternRule, PartialResultsStayWithinTheTypesExactIntegers) {
  for (DataType type : all_datatypes())
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::avg})
      for (int p : {1, 2, 3, 4, 7, 8, 16, 64, 300}) {
        const Shape shape = shape_for(CollectiveKind::allreduce, 200 * size_of(type), size_of(type), p);
        std::vector<PatternRule> rules;
        for (int q = 0; q < p; ++q) rules.push_back(case_for(CollectiveKind::allreduce, type, op, q, p, shape));
        if (!rules[0].exact()) continue;
        const std::int64_t limit = exact_integer_limit(type);
        SCOPED_TRACE(describe(CollectiveKind::allreduce, type, op, p, shape));
        for (std::size_t g = 0; g < shape.count; ++g) {
          std::int64_t forward = op == ReduceOp::prod ? 1 : 0;
          std::int64_t backward = forward;
          for (int q = 0; q < p; ++q) {
            const std::int64_t mine = rules[q].input(g);
            const std::int64_t theirs = rules[p - 1 - q].input(g);
            ASSERT_LE(std::abs(mine), limit);
            forward = op == ReduceOp::prod ? forward * mine : forward + mine;
            backward = op == ReduceOp::prod ? backward * theirs : backward + theirs;
            ASSERT_LE(std::abs(forward), limit) << "element " << g;
            ASSERT_LE(std::abs(backward), limit) << "element " << g;
          }
          const std::int64_t result = op == ReduceOp::avg ? forward / p : forward;
          ASSERT_EQ(op == ReduceOp::avg ? forward % p : 0, 0) << "element " << g;
          ASSERT_EQ(rules[0].expected(g), result) << "element " << g;
        }
      }
}

TEST(PatternRule, AvgIsExactWhereTheLibraryCannotRound) {
  const auto exact = [](DataType type, int p) {
    const Shape shape = shape_for(CollectiveKind::allreduce, 64 * size_of(type), size_of(type), p);
    return case_for(CollectiveKind::allreduce, type, ReduceOp::avg, 0, p, shape).exact();
  };
  EXPECT_TRUE(exact(DataType::int32, 3));     // integers: sum, then divide
  EXPECT_TRUE(exact(DataType::float32, 4));   // times 1/4 is exact
  EXPECT_FALSE(exact(DataType::float32, 3));  // times a rounded 1/3
  EXPECT_TRUE(exact(DataType::float16, 4));
  EXPECT_TRUE(exact(DataType::float8_e5m2, 4));
  EXPECT_FALSE(exact(DataType::float8_e5m2, 8));  // 2p = 16 is past e5m2's exact integers
  EXPECT_FALSE(exact(DataType::int8, 64));        // 2p = 128 overflows int8
  EXPECT_TRUE(exact(DataType::uint8, 64));
}

TEST(PatternRule, SumsPastTheTypesExactIntegersComeFromTwoRanks) {
  const Shape shape = shape_for(CollectiveKind::allreduce, 64, 1, 4);
  const PatternRule rule = case_for(CollectiveKind::allreduce, DataType::float8_e4m3, ReduceOp::sum, 0, 16, shape);
  std::size_t nonzero = 0;
  for (std::size_t g = 0; g < shape.count; ++g) nonzero += rule.input(g) != 0;
  EXPECT_GT(nonzero, 0u);
  EXPECT_LE(nonzero, 2 * (shape.count / 16 + 1));  // rank 0 gives to g = 16k and 16k - 1
}

}  // namespace
}  // namespace collbench
