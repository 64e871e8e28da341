#include "harness/fit/piecewise_fit.h"

#include <gtest/gtest.h>

#include <string>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "harness/fit/curve_fits.h"
#include "tests/unit/synthetic_curve.h"

namespace collbench {
namespace {

using synthetic::TrueSegment;

using synthetic::kKiB;
using synthetic::kMiB;

// Eager below 64 KiB, rendezvous above: a dearer start, a faster stream.
const std::vector<TrueSegment> kEagerRendezvous{{0, 5e-6, 1 / 10e9}, {64 * kKiB, 30e-6, 1 / 12e9}};

std::vector<double> exact_times(const std::vector<TrueSegment>& truth,
                                const std::vector<double>& sizes) {
  std::vector<double> times;
  for (double size : sizes) times.push_back(synthetic::true_time(truth, size));
  return times;
}

std::size_t index_of(const std::vector<double>& sizes, double size) {
  return static_cast<std::size_t>(std::ranges::find(sizes, size) - sizes.begin());
}

void expect_recovers(const AffineFit& fit, const TrueSegment& truth, double tolerance) {
  EXPECT_NEAR(fit.alpha_s, truth.alpha_s, tolerance * truth.alpha_s);
  EXPECT_NEAR(fit.beta_s_per_byte, truth.beta_s_per_byte, tolerance * truth.beta_s_per_byte);
}

TEST(FitPiecewise, OneAffineCurveIsOneSegment) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const std::vector<TrueSegment> truth{{0, 10e-6, 1 / 5e9}};
  const PiecewiseFit fit = fit_piecewise(sizes, exact_times(truth, sizes));
  ASSERT_EQ(fit.segments.size(), 1u);
  EXPECT_EQ(fit.segments[0].first, 0u);
  EXPECT_EQ(fit.segments[0].last, sizes.size() - 1);
  expect_recovers(fit.segments[0].fit, truth[0], 1e-9);
}

TEST(FitPiecewise, JumpAt64KiBBreaksBetween32And64KiB) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const PiecewiseFit fit = fit_piecewise(sizes, exact_times(kEagerRendezvous, sizes));
  ASSERT_EQ(fit.segments.size(), 2u);
  EXPECT_EQ(fit.segments[0].first, 0u);
  EXPECT_EQ(fit.segments[0].last, index_of(sizes, 32 * kKiB));
  EXPECT_EQ(fit.segments[1].first, index_of(sizes, 64 * kKiB));
  EXPECT_EQ(fit.segments[1].last, sizes.size() - 1);
  expect_recovers(fit.segments[0].fit, kEagerRendezvous[0], 1e-9);
  expect_recovers(fit.segments[1].fit, kEagerRendezvous[1], 1e-9);
}

// LL-like below 4 KiB, a middle protocol up to 1 MiB, the bulk one above; each switch is a
// clear jump (a switch near the crossing of two lines would leave its boundary size to chance
// under noise).
const std::vector<TrueSegment> kThreeProtocols{
    {0, 2e-6, 1 / 1e9}, {4 * kKiB, 12e-6, 1 / 8e9}, {1 * kMiB, 40e-6, 1 / 20e9}};

TEST(FitPiecewise, ThreeSegmentsAreFoundWithTheirBreaks) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const PiecewiseFit fit = fit_piecewise(sizes, exact_times(kThreeProtocols, sizes));
  ASSERT_EQ(fit.segments.size(), 3u);
  EXPECT_EQ(fit.segments[1].first, index_of(sizes, 4 * kKiB));
  EXPECT_EQ(fit.segments[2].first, index_of(sizes, 1 * kMiB));
  for (std::size_t k = 0; k < 3; ++k)
    expect_recovers(fit.segments[k].fit, kThreeProtocols[k], 1e-9);
}

TEST(FitPiecewise, ThreeSegmentsUnderTwoPercentNoiseKeepTheirBreaks) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  int found = 0;
  for (std::uint64_t trial = 0; trial < 100; ++trial) {
    const auto curve = synthetic::make_curve(kThreeProtocols, sizes, 1, 0.02, 3000 + trial);
    const PiecewiseFit fit = fit_piecewise(sizes, curve.medians);
    found += fit.segments.size() == 3 && fit.segments[1].first == index_of(sizes, 4 * kKiB) &&
             fit.segments[2].first == index_of(sizes, 1 * kMiB);
  }
  EXPECT_GE(found, 90);
}

// Held-out prediction must not buy segments with noise: a pure line under 2% noise, one
// sample per size.
TEST(FitPiecewise, TwoPercentNoiseAddsNoSpuriousSegments) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const std::vector<TrueSegment> truth{{0, 10e-6, 1 / 5e9}};
  int one_segment = 0;
  for (std::uint64_t trial = 0; trial < 100; ++trial) {
    const auto curve = synthetic::make_curve(truth, sizes, 1, 0.02, 2000 + trial);
    one_segment += fit_piecewise(sizes, curve.medians).segments.size() == 1;
  }
  EXPECT_GE(one_segment, 95);
}

// Each held-out error is the chosen model, refitted without that size, against it.
TEST(FitPiecewise, HeldOutErrorsPredictEachSizeFromTheOthers) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const auto curve = synthetic::make_curve(kEagerRendezvous, sizes, 5, 0.03, 7);
  const PiecewiseFit fit = fit_piecewise(sizes, curve.medians);
  ASSERT_EQ(fit.segments.size(), 2u);
  ASSERT_EQ(fit.held_out_errors.size(), sizes.size());
  for (std::size_t out : {std::size_t{0}, std::size_t{5}, sizes.size() - 1}) {
    std::vector<double> kept_sizes, kept_times;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (i != out) {
        kept_sizes.push_back(sizes[i]);
        kept_times.push_back(curve.medians[i]);
      }
    const PiecewiseFit without = fit_segments(kept_sizes, kept_times, 2);
    const double predicted = predict(without, kept_sizes, sizes[out]);
    EXPECT_NEAR(fit.held_out_errors[out], (predicted - curve.medians[out]) / curve.medians[out],
                1e-9);
  }
  // 3% noise on medians of 5 samples: the misfit is of the noise's size, not more.
  EXPECT_LT(fit.misfit(), 0.05);
}

// A line whose intercept would be negative (bandwidth falling with size) is held at 0.
TEST(FitPiecewise, ALatencyTermIsNeverNegative) {
  const std::vector<double> sizes = synthetic::geometric_sizes(1 * kMiB, 64 * kMiB);
  std::vector<double> times;
  for (double size : sizes) times.push_back(size / (size < 8 * kMiB ? 10e9 : 4e9));
  const PiecewiseFit fit = fit_segments(sizes, times, 1);
  EXPECT_TRUE(fit.segments[0].fit.alpha_at_bound);
  EXPECT_EQ(fit.segments[0].fit.alpha_s, 0);
  EXPECT_GT(fit.segments[0].fit.beta_s_per_byte, 1 / 10e9);
}

TEST(FitPiecewise, OptionsBoundSegmentsAndTheirLength) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const std::vector<double> times = exact_times(kThreeProtocols, sizes);
  EXPECT_EQ(fit_piecewise(sizes, times, {.max_segments = 1}).segments.size(), 1u);
  EXPECT_EQ(fit_piecewise(sizes, times, {.max_segments = 2}).segments.size(), 2u);
  // Nine sizes per segment at least: the middle protocol's eight sizes cannot stand alone.
  const PiecewiseFit long_segments = fit_piecewise(sizes, times, {.min_sizes_per_segment = 9});
  for (const Segment& segment : long_segments.segments)
    EXPECT_GE(segment.last - segment.first + 1, 9u);
}

TEST(FitPiecewise, CurveShorterThanOneSegmentIsOneSegment) {
  const std::vector<double> sizes{1024, 2048};
  const PiecewiseFit fit = fit_piecewise(sizes, std::vector<double>{2e-6, 3e-6});
  ASSERT_EQ(fit.segments.size(), 1u);
  EXPECT_EQ(fit.segments[0].last, 1u);
  EXPECT_NEAR(fit.segments[0].fit.alpha_s, 1e-6, 1e-15);
}

TEST(FitPiecewise, FitSegmentsKeepsTheCountAndChoosesTheBreaks) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const PiecewiseFit fit = fit_segments(sizes, exact_times(kThreeProtocols, sizes), 3);
  ASSERT_EQ(fit.segments.size(), 3u);
  EXPECT_EQ(fit.segments[1].first, index_of(sizes, 4 * kKiB));
  EXPECT_EQ(fit.segments[2].first, index_of(sizes, 1 * kMiB));
  EXPECT_TRUE(fit.held_out_errors.empty());
}

TEST(FitPiecewise, RejectsMalformedCurves) {
  const std::vector<double> one{1};
  const std::vector<double> two{1, 2};
  EXPECT_THROW(fit_piecewise(one, one), std::invalid_argument);
  EXPECT_THROW(fit_piecewise(two, one), std::invalid_argument);
  EXPECT_THROW(fit_piecewise(std::vector<double>{2, 1}, two), std::invalid_argument);
  EXPECT_THROW(fit_piecewise(std::vector<double>{1, 1}, two), std::invalid_argument);
  EXPECT_THROW(fit_segments(two, one, 1), std::invalid_argument);
}

// fit_models on the piecewise fits: a pinned algorithm and protocol (an NCCL tuning sweep) is
// part of the curve, and a family across rank counts never mixes tunings.
struct SweepTuning {
  std::string algorithm, protocol;
  double alpha_s, beta_s_per_byte;  // the ring family's truth under this tuning
};

std::vector<PointResult> tuning_sweep(const std::vector<SweepTuning>& tunings) {
  std::vector<PointResult> points;
  const std::vector<double> sizes = synthetic::geometric_sizes(1024, 4 * kMiB, 4);
  std::uint64_t seed = 7;
  // Interleaved, size by size, so that grouping by arrival order alone would mix them.
  std::vector<synthetic::Curve> curves;
  for (const SweepTuning& tuning : tunings)
    for (int ranks : {2, 4}) {
      const double p = ranks;
      const std::vector<TrueSegment> truth{
          {0, 2 * (p - 1) * tuning.alpha_s, 2 * (p - 1) / p * tuning.beta_s_per_byte}};
      curves.push_back(synthetic::make_curve(truth, sizes, 15, 0.01, seed++));
    }
  for (std::size_t i = 0; i < sizes.size(); ++i)
    for (std::size_t c = 0; c < curves.size(); ++c) {
      const SweepTuning& tuning = tunings[c / 2];
      PointResult point;
      point.key = {.backend = "nccl",
                   .collective = CollectiveKind::allreduce,
                   .datatype = DataType::float32,
                   .nranks = c % 2 ? 4 : 2,
                   .mode = Mode::latency,
                   .size_bytes = static_cast<std::size_t>(sizes[i]),
                   .count = static_cast<std::size_t>(sizes[i]) / 4,
                   .algorithm = tuning.algorithm,
                   .protocol = tuning.protocol};
      point.summary.median = curves[c].medians[i];
      point.samples.nranks = 1;
      point.samples.per_rank_seconds = curves[c].samples[i];
      point.samples.world_ranks = {0};
      points.push_back(std::move(point));
    }
  return points;
}

TEST(ParameterDoubt, NamesWhyAFittedValueSaysLittle) {
  EXPECT_EQ(parameter_doubt("alpha", 5e-6, {4e-6, 6e-6}), std::nullopt);
  EXPECT_EQ(parameter_doubt("alpha", 5e-6, {0, 6e-6}), "alpha not significant");
  EXPECT_EQ(parameter_doubt("alpha", 0, {0, 0}), "alpha not significant");
  EXPECT_EQ(parameter_doubt("beta", 5e-6, {1e-6, 7e-6}), "beta interval wider than beta");
  EXPECT_EQ(parameter_doubt("beta", 5e-6, {5.5e-6, 7e-6}),
            "beta outside its interval: breakpoints unstable");
  EXPECT_EQ(parameter_doubt("beta", 5e-6, {3e-6, 4.5e-6}),
            "beta outside its interval: breakpoints unstable");
}

TEST(FitModels, TuningsAreSeparateCurvesAndFamilies) {
  const std::vector<SweepTuning> tunings{
      {"", "", 5e-6, 1 / 10e9}, {"Ring", "LL128", 2e-6, 1 / 8e9}, {"Ring", "Simple", 8e-6, 1 / 20e9}};
  FitOptions options;
  options.bootstrap_replicates = 20;
  options.seed = 3;
  const ModelReport report = fit_models(tuning_sweep(tunings), options);

  ASSERT_EQ(report.curves.size(), 6u);
  for (std::size_t c = 0; c < report.curves.size(); ++c) {
    const CurveFit& curve = report.curves[c];
    EXPECT_EQ(curve.key.algorithm, tunings[c / 2].algorithm) << c;
    EXPECT_EQ(curve.key.protocol, tunings[c / 2].protocol) << c;
    EXPECT_EQ(curve.key.nranks, c % 2 ? 4 : 2) << c;
    EXPECT_EQ(curve.sizes, 7u) << c;  // its own sizes, no other tuning's
    EXPECT_FALSE(curve.segments.empty()) << c;
  }

  ASSERT_EQ(report.families.size(), 3u);
  for (std::size_t f = 0; f < report.families.size(); ++f) {
    const FamilyReport& family = report.families[f];
    EXPECT_EQ(family.key.algorithm, tunings[f].algorithm) << f;
    EXPECT_EQ(family.key.protocol, tunings[f].protocol) << f;
    EXPECT_EQ(family.key.nranks, 0);
    EXPECT_EQ(family.rank_counts, (std::vector<int>{2, 4})) << f;
    const auto ring = std::ranges::find_if(
        family.families, [](const FamilyFit& fit) { return fit.family.name == "ring"; });
    ASSERT_NE(ring, family.families.end());
    // Fitted on this tuning's curves alone, the ring family finds this tuning's truth.
    EXPECT_NEAR(ring->alpha_s, tunings[f].alpha_s, 0.1 * tunings[f].alpha_s) << f;
    EXPECT_NEAR(ring->beta_s_per_byte, tunings[f].beta_s_per_byte,
                0.1 * tunings[f].beta_s_per_byte)
        << f;
  }
  ASSERT_EQ(report.crossovers.size(), 6u);  // two sizes per family
  for (std::size_t i = 0; i < report.crossovers.size(); ++i)
    EXPECT_EQ(report.crossovers[i].key.protocol, tunings[i / 2].protocol) << i;
}

}  // namespace
}  // namespace collbench
