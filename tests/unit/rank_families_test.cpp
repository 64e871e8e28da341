#include "harness/fit/rank_families.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/unit/synthetic_ranks.h"

namespace collbench {
namespace {

using synthetic::curves_of;
using synthetic::kAlpha;
using synthetic::kBeta;
using synthetic::ring_allgather;
using synthetic::ring_allreduce;
using synthetic::TimeModel;
using synthetic::tree_allreduce;
const RankFamily& kRing = *find_family(CollectiveKind::allreduce, "ring");

void expect_parameters(const FamilyFit& fit, double tolerance) {
  EXPECT_NEAR(fit.alpha_s, kAlpha, tolerance * kAlpha);
  EXPECT_NEAR(fit.beta_s_per_byte, kBeta, tolerance * kBeta);
}

TEST(FitRankFamilies, RingAllreduceDataRecoversItsParametersAndChoosesRing) {
  const auto fits =
      fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 3, 4, 8}));
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].family.name, "ring");
  EXPECT_EQ(fits[1].family.name, "tree");
  EXPECT_LT(fits[0].bic, fits[1].bic);
  expect_parameters(fits[0], 0.01);
  EXPECT_LT(fits[0].rms_rel_error, 1e-9);
  EXPECT_GT(fits[1].rms_rel_error, 0.01);  // tree cannot bend to ring data
}

TEST(FitRankFamilies, TreeAllreduceDataChoosesTree) {
  const auto fits =
      fit_rank_families(CollectiveKind::allreduce, curves_of(tree_allreduce, {2, 3, 4, 8}));
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].family.name, "tree");
  expect_parameters(fits[0], 0.01);
}

TEST(FitRankFamilies, NoisyRingDataStillChoosesRing) {
  const auto fits =
      fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 3, 4, 8}, 0.03));
  EXPECT_EQ(fits[0].family.name, "ring");
  expect_parameters(fits[0], 0.05);
}

TEST(FitRankFamilies, HeldOutErrorNeedsThreeRankCounts) {
  const auto two = fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 4}));
  EXPECT_TRUE(std::isnan(two[0].held_out_rel_error));
  const auto three =
      fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 4, 8}));
  EXPECT_LT(three[0].held_out_rel_error, 1e-9);  // exact data: each count predicted exactly
  EXPECT_GT(three[1].held_out_rel_error, 0.01);
}

// The family is chosen by predicting a rank count it was not fitted to: over 100 seeds of 3%
// noise, the planted family wins at least 95 times, ring data and tree data alike.
TEST(FitRankFamilies, HeldOutChoiceFindsThePlantedFamilyOverSeeds) {
  for (const auto& [truth, name] : {std::pair{TimeModel(ring_allreduce), "ring"},
                                    std::pair{TimeModel(tree_allreduce), "tree"}}) {
    int found = 0;
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
      const auto fits =
          fit_rank_families(CollectiveKind::allreduce, curves_of(truth, {2, 3, 4}, 0.03, seed));
      ASSERT_FALSE(std::isnan(fits[0].held_out_rel_error));
      found += fits[0].family.name == name;
    }
    EXPECT_GE(found, 95) << name;
  }
}

TEST(FitRankFamilies, AllgatherAndReduceScatterHaveOnlyTheRing) {
  const auto curves = curves_of(ring_allgather, {2, 4, 8});
  for (CollectiveKind kind : {CollectiveKind::allgather, CollectiveKind::reduce_scatter}) {
    const auto fits = fit_rank_families(kind, curves);
    ASSERT_EQ(fits.size(), 1u);
    EXPECT_EQ(fits[0].family.name, "ring");
    expect_parameters(fits[0], 0.01);
  }
}

TEST(FitRankFamilies, NeedsTwoDistinctRankCounts) {
  EXPECT_THROW(fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {4})),
               std::invalid_argument);
  EXPECT_THROW(fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {4, 4})),
               std::invalid_argument);
  EXPECT_THROW(fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {1, 4})),
               std::invalid_argument);
  auto mismatched = curves_of(ring_allreduce, {2, 4});
  mismatched[1].times.pop_back();
  EXPECT_THROW(fit_rank_families(CollectiveKind::allreduce, mismatched), std::invalid_argument);
}

// p* = n·beta/alpha = 100e6 B / (5 µs · 25 GB/s) = 100e6 / 125e3 = 800 ranks.
TEST(RingCrossoverRanks, IsSizeTimesBetaOverAlpha) {
  const FamilyFit ring{.family = kRing, .alpha_s = kAlpha, .beta_s_per_byte = kBeta};
  const auto ranks = ring_crossover_ranks(ring, 100e6);
  ASSERT_TRUE(ranks.has_value());
  EXPECT_NEAR(*ranks, 800, 1e-9);
}

// Planted p* at 25 MiB: 26214400 B / (5 µs · 25 GB/s) = 209.7 ranks, 3% noise on every point.
// Over 1,000 seeds the 95% interval holds it 933 to 936 times (noise 1% to 10%): beta rests on
// the few largest sizes, and a percentile interval from that few falls a little short. These
// 100 seeds hold it 95 times; below 90 the interval has lost its misfit or its noise.
TEST(RingCrossoverIntervals, HoldThePlantedCrossoverOverSeeds) {
  const std::vector<double> sizes{25.0 * (1 << 20)};
  const double planted = sizes[0] * kBeta / kAlpha;
  int inside = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto intervals = ring_crossover_intervals(
        CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 4, 8}, 0.03, seed), sizes, 200,
        seed);
    ASSERT_EQ(intervals.size(), 1u);
    ASSERT_LT(intervals[0].low, intervals[0].high) << seed;
    inside += intervals[0].low <= planted && planted <= intervals[0].high;
  }
  EXPECT_GE(inside, 90);
}

// The ring family forced onto tree data misfits; its residuals widen the interval.
TEST(RingCrossoverIntervals, MisfitWidensTheInterval) {
  const std::vector<double> sizes{25.0 * (1 << 20)};
  const auto width = [&](const TimeModel& truth) {
    const auto ci = ring_crossover_intervals(CollectiveKind::allreduce,
                                             curves_of(truth, {2, 4, 8}, 0.01), sizes, 200, 5);
    return (ci[0].high - ci[0].low) / (ci[0].high + ci[0].low);
  };
  EXPECT_GT(width(tree_allreduce), 2 * width(ring_allreduce));
}

TEST(RingCrossoverIntervals, RefuseNoReplicates) {
  EXPECT_THROW(ring_crossover_intervals(CollectiveKind::allreduce,
                                        curves_of(ring_allreduce, {2, 4}), std::vector{1e6}, 0, 1),
               std::invalid_argument);
}

TEST(RingCrossoverRanks, ZeroWithoutABandwidthTerm) {
  EXPECT_EQ(ring_crossover_ranks(
                FamilyFit{.family = kRing, .alpha_s = kAlpha, .beta_s_per_byte = -1e-12}, 1e6),
            0.0);
}

TEST(RingCrossoverRanks, UndefinedWithoutPositiveLatency) {
  EXPECT_FALSE(ring_crossover_ranks(
      FamilyFit{.family = kRing, .alpha_s = 0, .beta_s_per_byte = kBeta}, 1e6));
  EXPECT_FALSE(ring_crossover_ranks(
      FamilyFit{.family = kRing, .alpha_s = -1e-6, .beta_s_per_byte = kBeta}, 1e6));
}

}  // namespace
}  // namespace collbench
