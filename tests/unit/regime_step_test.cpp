#include "harness/fit/regime_step.h"

#include <gtest/gtest.h>

#include <vector>

namespace collbench {
namespace {

std::vector<Interval> within(const std::vector<double>& medians, double relative) {
  std::vector<Interval> intervals;
  for (double median : medians)
    intervals.push_back({median * (1 - relative), median * (1 + relative)});
  return intervals;
}

// The demo's allreduce latency around Open MPI's 4 KiB eager limit: 1.05 us at 4 KiB, 4.8 us at
// 8 KiB, a 2x step in size.
TEST(RegimeStep, NamesTheStepWhereTimeOutgrowsTheSize) {
  const std::vector<std::size_t> sizes{1024, 2048, 4096, 8192, 16384};
  const std::vector<double> medians{0.46e-6, 0.56e-6, 1.05e-6, 4.8e-6, 8.2e-6};
  const auto step = steepest_regime_step(sizes, medians, within(medians, 0.03));
  ASSERT_TRUE(step);
  EXPECT_EQ(step->from_bytes, 4096u);
  EXPECT_EQ(step->to_bytes, 8192u);
  EXPECT_NEAR(step->time_ratio, 4.8 / 1.05, 1e-9);
  EXPECT_EQ(step->size_ratio, 2);
  EXPECT_EQ(describe(*step),
            "the time steps 4.6x from 4 KiB to 8 KiB, faster than the size (2x): a switch of "
            "protocol or algorithm, or a cache outgrown, that one line cannot follow");
}

// Any alpha-beta line with alpha, beta >= 0 grows at most as the size: none is named, nor is a
// rise past the size that the medians' intervals do not rule out.
TEST(RegimeStep, NoneOnOneLineOrWithinTheIntervals) {
  const std::vector<std::size_t> sizes{8, 64, 512, 4096, 32768, 262144};
  std::vector<double> line;
  for (std::size_t n : sizes) line.push_back(0.6e-6 + static_cast<double>(n) / 6e9);
  EXPECT_FALSE(steepest_regime_step(sizes, line, within(line, 0.01)));
  const std::vector<std::size_t> doubling{1024, 2048};
  const std::vector<double> barely{1e-6, 2.1e-6};  // 2.1x, but within 5% intervals
  EXPECT_FALSE(steepest_regime_step(doubling, barely, within(barely, 0.05)));
  EXPECT_TRUE(steepest_regime_step(doubling, barely, within(barely, 0.01)));
}

}  // namespace
}  // namespace collbench
