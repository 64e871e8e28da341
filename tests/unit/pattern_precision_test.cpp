// The validation pattern's exactness for half, bfloat16 and the two fp8 types, checked with
// CUDA's own host conversions (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h), not the stand-in's model:
// where PatternRule says a case is exact, the reduction of the ranks' inputs, each converted to
// the type and every step rounded to it as NCCL reduces (avg: each input pre-multiplied by 1/p
// in the type), lands bit for bit on the expected value converted, whatever the order of the
// ranks (a ring's rotations, a tree's pairs). That is what the validation kernels compare.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "collectives/pattern.h"

namespace collbench {
namespace {

template <typename T>
std::uint32_t bits(T value) {
  std::uint32_t out = 0;
  std::memcpy(&out, &value, sizeof(T));
  return out;
}

template <typename T>
float as_float(T value) {
  return static_cast<float>(value);
}

template <typename T>
T rounded(float value) {
  return T(value);
}

// One step of the reduction, in float, rounded to the type: NCCL's reduction of two elements.
template <typename T>
T step(ReduceOp op, T a, T b) {
  const float x = as_float(a), y = as_float(b);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return rounded<T>(x + y);
    case ReduceOp::prod:
      return rounded<T>(x * y);
    case ReduceOp::min:
      return rounded<T>(x < y ? x : y);
    case ReduceOp::max:
      return rounded<T>(x > y ? x : y);
  }
  return a;
}

// The ranks' inputs reduced left to right (a ring from the first), or in pairs, level by level
// (`tree`).
template <typename T>
T reduce(ReduceOp op, std::vector<T> inputs, bool tree) {
  if (!tree) {
    T acc = inputs.front();
    for (std::size_t q = 1; q < inputs.size(); ++q) acc = step(op, acc, inputs[q]);
    return acc;
  }
  while (inputs.size() > 1) {
    std::vector<T> next;
    for (std::size_t q = 0; q + 1 < inputs.size(); q += 2)
      next.push_back(step(op, inputs[q], inputs[q + 1]));
    if (inputs.size() % 2) next.push_back(inputs.back());
    inputs = next;
  }
  return inputs.front();
}

// Every element of an allreduce of `count` elements over `p` ranks, where the rule says exact.
template <typename T>
void check_case(DataType type, ReduceOp op, int p, std::size_t count, int& exact_cases) {
  const Shape shape = shape_for(CollectiveKind::allreduce, count * sizeof(T), sizeof(T), p);
  std::vector<PatternRule> ranks;
  for (int q = 0; q < p; ++q)
    ranks.emplace_back(PatternCase{CollectiveKind::allreduce, type, op, q, p, shape});
  if (!ranks.front().exact()) return;
  ++exact_cases;
  const T scale = rounded<T>(1.0f / static_cast<float>(p));
  int wrong = 0;
  for (std::size_t i = 0; i < shape.count && wrong < 3; ++i) {
    std::vector<T> inputs;
    for (const PatternRule& rank : ranks) {
      const T in = rounded<T>(static_cast<float>(rank.input(i)));
      inputs.push_back(op == ReduceOp::avg ? rounded<T>(as_float(in) * as_float(scale)) : in);
    }
    const std::uint32_t expected = bits(rounded<T>(static_cast<float>(ranks[0].expected(i))));
    for (int order = 0; order < 3; ++order) {
      std::vector<T> ordered = inputs;
      if (order == 1) std::rotate(ordered.begin(), ordered.begin() + p / 2, ordered.end());
      const std::uint32_t got = bits(reduce(op, ordered, order == 2));
      if (got != expected && ++wrong <= 3)
        ADD_FAILURE() << name(type) << " " << name(op) << " over " << p << " ranks, element " << i
                      << (order == 2   ? " (tree)"
                          : order == 1 ? " (rotated ring)"
                                       : " (ring)")
                      << ": bits " << got << ", expected " << expected << " ("
                      << ranks[0].expected(i) << ")";
    }
  }
}

// The (op, ranks) cases the rule calls exact, each checked.
template <typename T>
int check_type(DataType type) {
  int exact_cases = 0;
  for (ReduceOp op : all_reduce_ops())
    for (int p : {2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 32, 64, 128, 256})
      check_case<T>(type, op, p, 1031, exact_cases);
  return exact_cases;
}

// The ranks collbench's own tests run (2, 3, 4) validate every op of every type (avg on 2 and 4:
// a power of two), so an exactness claim that went wrong cannot hide behind "not checked".
void expect_small_jobs_checked(DataType type) {
  for (int p : {2, 3, 4})
    for (ReduceOp op : all_reduce_ops()) {
      const Shape shape = shape_for(CollectiveKind::allreduce, 64, 1, p);
      const bool exact =
          PatternRule(PatternCase{CollectiveKind::allreduce, type, op, 0, p, shape}).exact();
      EXPECT_EQ(exact, op != ReduceOp::avg || p != 3) << name(type) << " " << name(op) << " " << p;
    }
}

TEST(PatternPrecision, HalfIsExactWhereTheRuleSaysSo) {
  expect_small_jobs_checked(DataType::float16);
  EXPECT_GT(check_type<__half>(DataType::float16), 50);
}

TEST(PatternPrecision, Bfloat16IsExactWhereTheRuleSaysSo) {
  expect_small_jobs_checked(DataType::bfloat16);
  EXPECT_GT(check_type<__nv_bfloat16>(DataType::bfloat16), 50);
}

TEST(PatternPrecision, Fp8E4m3IsExactWhereTheRuleSaysSo) {
  expect_small_jobs_checked(DataType::float8_e4m3);
  EXPECT_GT(check_type<__nv_fp8_e4m3>(DataType::float8_e4m3), 30);
}

TEST(PatternPrecision, Fp8E5m2IsExactWhereTheRuleSaysSo) {
  expect_small_jobs_checked(DataType::float8_e5m2);
  EXPECT_GT(check_type<__nv_fp8_e5m2>(DataType::float8_e5m2), 30);
}

// The poison's bits (datatype.h) as CUDA's own conversions read them: +-infinity, or where
// the type has none (f8e4m3) what CUDA's saturating conversion makes of it, its largest finite
// values; and a NaN. No input or result of any op, converted to the type, has them.
template <typename T>
void expect_poison_is_cudas(DataType type, bool has_infinity) {
  SCOPED_TRACE(std::string(name(type)));
  const auto read = [](std::uint64_t stored) {
    T value;
    std::memcpy(static_cast<void*>(&value), &stored, sizeof(T));
    return as_float(value);
  };
  if (has_infinity) {
    EXPECT_EQ(read(highest_bits(type)), INFINITY);
    EXPECT_EQ(read(lowest_bits(type)), -INFINITY);
  } else {
    EXPECT_EQ(bits(rounded<T>(INFINITY)), highest_bits(type));
    EXPECT_EQ(bits(rounded<T>(-INFINITY)), lowest_bits(type));
  }
  EXPECT_TRUE(std::isnan(read(nan_bits(type))));
  for (CollectiveKind kind : {CollectiveKind::allreduce, CollectiveKind::alltoall})
    for (ReduceOp op : all_reduce_ops())
      for (int p : {1, 2, 3, 4, 16, 300}) {
        const Shape shape = shape_for(kind, 64 * static_cast<std::size_t>(p), 1, p);
        const PatternRule rule(PatternCase{kind, type, op, 0, p, shape});
        for (std::size_t i = 0; i < rule.input_count(); ++i)
          ASSERT_NE(bits(rounded<T>(static_cast<float>(rule.input(i)))), rule.poison_bits())
              << name(kind) << " " << name(op) << " p=" << p << " input " << i;
        for (std::size_t i = 0; i < rule.result_count(); ++i)
          ASSERT_NE(bits(rounded<T>(static_cast<float>(rule.expected(i)))), rule.poison_bits())
              << name(kind) << " " << name(op) << " p=" << p << " result " << i;
      }
}

TEST(PatternPrecision, ThePoisonIsCudasInfinityOrNanAndNoValueTakesIt) {
  expect_poison_is_cudas<__half>(DataType::float16, true);
  expect_poison_is_cudas<__nv_bfloat16>(DataType::bfloat16, true);
  expect_poison_is_cudas<__nv_fp8_e4m3>(DataType::float8_e4m3, false);
  expect_poison_is_cudas<__nv_fp8_e5m2>(DataType::float8_e5m2, true);
}

}  // namespace
}  // namespace collbench
