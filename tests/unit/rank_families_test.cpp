#include "harness/fit/rank_families.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/unit/synthetic_curve.h"

namespace collbench {
namespace {

constexpr double kAlpha = 5e-6;
constexpr double kBeta = 1 / 25e9;

using TimeModel = std::function<double(double size, double ranks)>;

double ring_allreduce(double size, double ranks) {
  return 2 * (ranks - 1) * kAlpha + 2 * (ranks - 1) / ranks * size * kBeta;
}

double tree_allreduce(double size, double ranks) {
  return 2 * std::log2(ranks) * kAlpha + 2 * size * kBeta;
}

double ring_allgather(double size, double ranks) {
  return (ranks - 1) * kAlpha + (ranks - 1) / ranks * size * kBeta;
}

// One curve per rank count over 8 B .. 64 MiB; noise_sigma 0 gives the model's times exactly.
std::vector<RankCurve> curves_of(const TimeModel& model, std::vector<int> rank_counts,
                                 double noise_sigma = 0) {
  std::vector<RankCurve> curves;
  synthetic::StandardNormal normal(11);
  for (int ranks : rank_counts) {
    RankCurve curve{.nranks = ranks, .sizes = synthetic::standard_sizes(), .times = {}};
    for (double size : curve.sizes)
      curve.times.push_back(model(size, ranks) * std::exp(noise_sigma * normal()));
    curves.push_back(std::move(curve));
  }
  return curves;
}

void expect_parameters(const FamilyFit& fit, double tolerance) {
  EXPECT_NEAR(fit.alpha_s, kAlpha, tolerance * kAlpha);
  EXPECT_NEAR(fit.beta_s_per_byte, kBeta, tolerance * kBeta);
}

TEST(FitRankFamilies, RingAllreduceDataRecoversItsParametersAndChoosesRing) {
  const auto fits =
      fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 3, 4, 8}));
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].family, "ring");
  EXPECT_EQ(fits[1].family, "tree");
  EXPECT_LT(fits[0].bic, fits[1].bic);
  expect_parameters(fits[0], 0.01);
  EXPECT_LT(fits[0].rms_rel_error, 1e-9);
  EXPECT_GT(fits[1].rms_rel_error, 0.01);  // tree cannot bend to ring data
}

TEST(FitRankFamilies, TreeAllreduceDataChoosesTree) {
  const auto fits =
      fit_rank_families(CollectiveKind::allreduce, curves_of(tree_allreduce, {2, 3, 4, 8}));
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].family, "tree");
  expect_parameters(fits[0], 0.01);
}

TEST(FitRankFamilies, NoisyRingDataStillChoosesRing) {
  const auto fits =
      fit_rank_families(CollectiveKind::allreduce, curves_of(ring_allreduce, {2, 3, 4, 8}, 0.03));
  EXPECT_EQ(fits[0].family, "ring");
  expect_parameters(fits[0], 0.05);
}

TEST(FitRankFamilies, AllgatherAndReduceScatterHaveOnlyTheRing) {
  const auto curves = curves_of(ring_allgather, {2, 4, 8});
  for (CollectiveKind kind : {CollectiveKind::allgather, CollectiveKind::reduce_scatter}) {
    const auto fits = fit_rank_families(kind, curves);
    ASSERT_EQ(fits.size(), 1u);
    EXPECT_EQ(fits[0].family, "ring");
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
  const FamilyFit ring{.family = "ring", .alpha_s = kAlpha, .beta_s_per_byte = kBeta};
  const auto ranks = ring_crossover_ranks(ring, 100e6);
  ASSERT_TRUE(ranks.has_value());
  EXPECT_NEAR(*ranks, 800, 1e-9);
}

TEST(RingCrossoverRanks, UndefinedWithoutPositiveLatency) {
  EXPECT_FALSE(ring_crossover_ranks(
      FamilyFit{.family = "ring", .alpha_s = 0, .beta_s_per_byte = kBeta}, 1e6));
  EXPECT_FALSE(ring_crossover_ranks(
      FamilyFit{.family = "ring", .alpha_s = -1e-6, .beta_s_per_byte = kBeta}, 1e6));
}

}  // namespace
}  // namespace collbench
