#include "harness/predict/step_efficiency.h"

#include <gtest/gtest.h>

#include <cmath>

namespace collbench {
namespace {

RankPrediction collective(double latency_s, double bandwidth_s, Interval ci) {
  return {.ranks = 1024,
          .size_bytes = 25 << 20,
          .time_s = latency_s + bandwidth_s,
          .time_ci = ci,
          .latency_s = latency_s,
          .bandwidth_s = bandwidth_s};
}

TEST(StepEfficiency, IsComputeOverComputeAndTheExposedCollective) {
  const auto efficiency =
      step_efficiency(collective(0.01, 0.03, {0.02, 0.08}), {.compute_s = 0.1, .overlap = 0.5});
  EXPECT_DOUBLE_EQ(efficiency.exposed_s, 0.02);
  EXPECT_DOUBLE_EQ(efficiency.efficiency, 0.1 / 0.12);
  // A slower collective is a lower efficiency: the interval's ends swap.
  EXPECT_DOUBLE_EQ(efficiency.efficiency_ci.low, 0.1 / 0.14);
  EXPECT_DOUBLE_EQ(efficiency.efficiency_ci.high, 0.1 / 0.11);
}

TEST(StepEfficiency, AFullyHiddenCollectiveCostsNothing) {
  const auto efficiency =
      step_efficiency(collective(0.01, 0.03, {0.02, 0.08}), {.compute_s = 0.1, .overlap = 1});
  EXPECT_DOUBLE_EQ(efficiency.efficiency, 1);
  EXPECT_DOUBLE_EQ(efficiency.efficiency_ci.low, 1);
}

TEST(FastestGrowingTerm, NamesTheTermThatGrewMost) {
  const RankPrediction fewer = collective(0.010, 0.030, {});
  EXPECT_EQ(fastest_growing_term(fewer, collective(0.020, 0.031, {}), std::nan("")), "latency");
  EXPECT_EQ(fastest_growing_term(fewer, collective(0.011, 0.040, {}), std::nan("")), "bandwidth");
  EXPECT_EQ(fastest_growing_term(fewer, collective(0.011, 0.040, {}), 0.05), "tail");
  EXPECT_EQ(fastest_growing_term(fewer, collective(0.011, 0.040, {}), 0.001), "bandwidth");
}

}  // namespace
}  // namespace collbench
