// The synthetic suite of the curve fits: five shapes a real curve takes, each under noise like
// the real samples' (20 samples per size, lognormal 3%), over 100 seeds, through fit_models as
// a run's points reach it. Where a shape defines them, the planted alpha, beta and n½ lie inside
// the headline's 95% intervals in at least 95 seeds; smooth curves get at most two segments; a
// protocol switch is found within one size of the truth; a curve the model cannot describe is
// flagged, not reported with confidence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "harness/fit/curve_fits.h"
#include "tests/unit/synthetic_curve.h"

namespace collbench {
namespace {

constexpr int kSeeds = 100;
constexpr int kRequired = 95;
using synthetic::kMiB;

// The headline's true alpha and beta where the shape defines them (n½ where both are).
struct Planted {
  std::optional<double> alpha_s;
  std::optional<double> beta_s_per_byte;
};

struct Shape {
  std::string name;
  double (*time)(double size);
  Planted planted;
  bool smooth;
  bool describable;  // an alpha-beta model with few segments fits it within the noise
};

// Hockney: 5 us, 10 GB/s.
double hockney(double n) { return 5e-6 + 1e-10 * n; }
// A protocol switch at 64 KiB: eager (3 us, 2 GB/s) below, rendezvous (25 us, 10 GB/s) above.
double step(double n) { return n < 65536 ? 3e-6 + 5e-10 * n : 25e-6 + 1e-10 * n; }
// A pipelined transfer, alpha + beta·n + 2·sqrt(alpha·beta·n) with 10 us and 10 GB/s: no
// alpha-beta line describes it, and its bandwidth is still 4% short of 1/beta at 64 MiB.
double pipelined(double n) { return 10e-6 + 1e-10 * n + 2 * std::sqrt(10e-6 * 1e-10 * n); }
// Bandwidth that saturates: 20 GB/s·(1 - exp(-n / 256 KiB)), after a 4 us latency; its
// intercept mixes the latency with the ramp, so only its bandwidth is planted.
double saturating(double n) { return 4e-6 + n / (20e9 * -std::expm1(-n / (256 * 1024.0))); }
// Bandwidth that falls from 10 to 4 GB/s between 2 and 4 MiB (a cache overflowing), 5 us.
double falling(double n) { return 5e-6 + n / (4e9 + 6e9 / (1 + std::pow(n / (2 * kMiB), 8))); }

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all{
      {"hockney", hockney, {5e-6, 1e-10}, true, true},
      {"step", step, {3e-6, 1e-10}, false, true},
      {"pipelined", pipelined, {10e-6, std::nullopt}, true, false},
      {"saturating", saturating, {std::nullopt, 1 / 20e9}, true, true},
      {"falling", falling, {5e-6, 1 / 4e9}, true, true},
  };
  return all;
}

struct Tally {
  int alpha = 0, beta = 0, half_size = 0, at_most_two = 0, step_found = 0, trusted = 0;
  int falls_found = 0;
  double alpha_squared_errors = 0, alpha_standard_errors = 0;  // sums over seeds
  double alpha_width_over_error() const {
    return alpha_standard_errors / kSeeds / std::sqrt(alpha_squared_errors / kSeeds);
  }
};

// The points of one noisy curve, as a run stores them: median and raw samples per size.
std::vector<PointResult> points_of(const synthetic::Curve& curve) {
  std::vector<PointResult> points;
  for (std::size_t i = 0; i < curve.sizes.size(); ++i) {
    PointResult point;
    point.key.size_bytes = static_cast<std::size_t>(curve.sizes[i]);
    point.summary.median = curve.medians[i];
    point.samples.nranks = 1;
    point.samples.per_rank_seconds = curve.samples[i];
    points.push_back(point);
  }
  return points;
}

Tally run_suite(const Shape& shape) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const Planted& planted = shape.planted;
  Tally tally;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const auto curve = synthetic::make_curve_of(shape.time, sizes, 20, 0.03, seed);
    FitOptions options;
    options.seed = static_cast<std::uint64_t>(seed);
    const ModelReport report = fit_models(points_of(curve), options);
    const CurveFit& fit = report.curves.at(0);
    const Headline& headline = fit.headline.value();
    tally.alpha += !planted.alpha_s || headline.alpha_ci.contains(*planted.alpha_s);
    tally.beta += !planted.beta_s_per_byte || headline.beta_ci.contains(*planted.beta_s_per_byte);
    tally.half_size += !planted.alpha_s || !planted.beta_s_per_byte ||
                       headline.half_size_ci.contains(*planted.alpha_s / *planted.beta_s_per_byte);
    if (planted.alpha_s) {
      tally.alpha_squared_errors += std::pow(headline.alpha_s - *planted.alpha_s, 2);
      tally.alpha_standard_errors += (headline.alpha_ci.high - headline.alpha_ci.low) / 2 / 1.96;
    }
    tally.at_most_two += fit.segments.size() <= 2;
    tally.trusted += headline.trusted();
    tally.falls_found += headline.bandwidth_falls_at_bytes >= 2 * kMiB &&
                         headline.bandwidth_falls_at_bytes <= 8 * kMiB;
    if (fit.segments.size() == 2) {
      const auto found = fit.segments[1].min_size_bytes;
      tally.step_found += found >= 32768 && found <= 131072;  // 64 KiB, give or take a size
    }
  }
  std::printf("%-11s planted inside: alpha %3d, beta %3d, n½ %3d; <= 2 segments %3d; "
              "switch found %3d; falls found %3d; trusted %3d (of %d); alpha interval / error "
              "%.2f\n",
              shape.name.c_str(), tally.alpha, tally.beta, tally.half_size, tally.at_most_two,
              tally.step_found, tally.falls_found, tally.trusted, kSeeds,
              planted.alpha_s ? tally.alpha_width_over_error() : 0.0);
  return tally;
}

class FitSuite : public ::testing::TestWithParam<int> {};

TEST_P(FitSuite, PlantedValuesLieInsideTheIntervals) {
  const Shape& shape = shapes()[static_cast<std::size_t>(GetParam())];
  const Planted& planted = shape.planted;
  const Tally tally = run_suite(shape);
  EXPECT_GE(tally.alpha, kRequired);
  EXPECT_GE(tally.beta, kRequired);
  EXPECT_GE(tally.half_size, kRequired);
  if (shape.smooth) {
    EXPECT_EQ(tally.at_most_two, kSeeds);
  }
  if (shape.name == "step") {
    EXPECT_GE(tally.step_found, kRequired);
  }
  if (shape.name == "falling") {
    EXPECT_GE(tally.falls_found, kRequired);
  }
  // Conservative, not useless: the intervals' implied standard error of alpha (half-width over
  // 1.96) against the alpha's actual error over the seeds.
  if (shape.describable && planted.alpha_s) {
    EXPECT_LT(tally.alpha_width_over_error(), 2.0);
  }
  // A curve the model describes is trusted; one it cannot is flagged by its misfit.
  if (shape.describable) {
    EXPECT_GE(tally.trusted, kRequired);
  } else {
    EXPECT_EQ(tally.trusted, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FitSuite, ::testing::Range(0, 5), [](const auto& info) {
  return shapes()[static_cast<std::size_t>(info.param)].name;
});

}  // namespace
}  // namespace collbench
