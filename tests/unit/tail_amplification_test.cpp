#include "harness/predict/tail_amplification.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/predict/lag_distribution.h"
#include "tests/unit/synthetic_tails.h"

namespace collbench {
namespace {

using synthetic::PlantedTail;

constexpr std::size_t kSamples = 500;
constexpr int kMeasuredRanks = 4;

bool inside(const Interval& interval, double value) {
  return interval.low <= value && value <= interval.high;
}

TEST(LagDistribution, QuantilesAreTheSortedLagsBelowTheThreshold) {
  std::vector<double> lags;
  for (int i = 0; i < 100; ++i) lags.push_back(i);
  const LagDistribution distribution(lags, 10);
  EXPECT_EQ(distribution.upper_quantile(0.5), 50);
  EXPECT_EQ(distribution.upper_quantile(1), 0);
  // Past the largest lag the fitted tail goes on growing.
  EXPECT_GT(distribution.upper_quantile(1e-4), 99);
}

TEST(LagDistribution, FitsAnExponentialTailAsShapeNearZero) {
  std::vector<double> lags;
  for (int i = 1; i <= 20000; ++i) lags.push_back(-std::log(1 - (i - 0.5) / 20000));
  const LagDistribution distribution(lags, 1000);
  EXPECT_NEAR(distribution.pareto_shape(), 0, 0.05);
  EXPECT_NEAR(distribution.upper_quantile(1e-6), -std::log(1e-6), 0.5);
}

TEST(TailAmplification, OneRankHasNoTailAndTheTailGrowsWithRanks) {
  const PlantedTail planted;
  const std::vector<double> ranks{1, 8, 64, 1024};
  const auto predictions =
      predict_tail(planted.samples(kSamples, kMeasuredRanks, 3), ranks, {.seed = 3});
  EXPECT_NEAR(predictions[0].tail_s, 0, 0.1 * planted.lag_scale_s);
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    EXPECT_GT(predictions[i].tail_s, predictions[i - 1].tail_s);
    EXPECT_GT(predictions[i].median_s, predictions[i - 1].median_s);
    EXPECT_LT(predictions[i].tail_ci.low, predictions[i].tail_ci.high);
  }
}

TEST(TailAmplification, WithoutReplicatesTheIntervalsAreNaN) {
  const PlantedTail planted;
  const std::vector<double> ranks{8};
  const auto predictions = predict_tail(planted.samples(50, 3, 1), ranks,
                                        {.bootstrap_replicates = 0, .seed = 1});
  EXPECT_TRUE(std::isfinite(predictions[0].p99_over_median));
  EXPECT_TRUE(std::isnan(predictions[0].tail_ci.low));
}

// The coverage the estimator was chosen by (README, "The tail"): 4 ranks of 500 samples,
// exponential lags, the tail term at 8 ranks and p99/median at 64, in 100 seeds.
TEST(TailAmplification, PlantedTailsLieInsideTheIntervals) {
  const PlantedTail planted;
  const std::vector<double> ranks{8, 64};
  const double one_rank_median = planted.slowest_quantile(0.5, 1);
  const double tail_at_8 = planted.slowest_quantile(0.5, 8) - one_rank_median;
  const double ratio_at_64 =
      planted.slowest_quantile(0.99, 64) / planted.slowest_quantile(0.5, 64);
  int tails_inside = 0;
  int ratios_inside = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto predictions =
        predict_tail(planted.samples(kSamples, kMeasuredRanks, seed), ranks, {.seed = seed});
    tails_inside += inside(predictions[0].tail_ci, tail_at_8);
    ratios_inside += inside(predictions[1].p99_over_median_ci, ratio_at_64);
  }
  EXPECT_GE(tails_inside, 95);
  EXPECT_GE(ratios_inside, 95);
}

}  // namespace
}  // namespace collbench
