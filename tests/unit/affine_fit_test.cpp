#include "harness/fit/affine_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "tests/unit/synthetic_curve.h"

namespace collbench {
namespace {

using synthetic::kKiB;
using synthetic::kGiB;

std::vector<double> line_times(const std::vector<double>& sizes, double alpha, double beta) {
  std::vector<double> times;
  for (double size : sizes) times.push_back(alpha + beta * size);
  return times;
}

double relative_difference(double value, double truth) {
  return std::abs(value - truth) / std::abs(truth);
}

// Plain least squares on relative error (weights 1/T²), by the textbook normal equations in
// long double: the start of the robust fit, used as the yardstick it must beat.
AffineFit relative_least_squares(const std::vector<double>& sizes,
                                 const std::vector<double>& times) {
  long double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const long double weight = 1.0L / (static_cast<long double>(times[i]) * times[i]);
    s0 += weight;
    s1 += weight * sizes[i];
    s2 += weight * sizes[i] * sizes[i];
    t0 += weight * times[i];
    t1 += weight * sizes[i] * times[i];
  }
  const long double determinant = s0 * s2 - s1 * s1;
  AffineFit fit;
  fit.alpha_s = static_cast<double>((s2 * t0 - s1 * t1) / determinant);
  fit.beta_s_per_byte = static_cast<double>((s0 * t1 - s1 * t0) / determinant);
  return fit;
}

// The largest relative distance between two fitted lines over the sizes.
double worst_relative_shift(const AffineFit& moved, const AffineFit& reference,
                            const std::vector<double>& sizes) {
  double worst = 0;
  for (double size : sizes) {
    const double before = reference.alpha_s + reference.beta_s_per_byte * size;
    worst =
        std::max(worst, relative_difference(moved.alpha_s + moved.beta_s_per_byte * size, before));
  }
  return worst;
}

TEST(FitAffine, RecoversAnExactLineOverEightBytesToOneGibibyte) {
  const std::vector<double> sizes = synthetic::geometric_sizes(8, kGiB);
  const double alpha = 3.7e-6, beta = 1 / 23.5e9;
  const AffineFit fit = fit_affine(sizes, line_times(sizes, alpha, beta));
  EXPECT_LT(relative_difference(fit.alpha_s, alpha), 1e-9);
  EXPECT_LT(relative_difference(fit.beta_s_per_byte, beta), 1e-9);
  EXPECT_LT(fit.rms_rel_error, 1e-12);
  EXPECT_LT(fit.max_rel_error, 1e-12);
  EXPECT_LT(fit.loss, 1e-20);
}

TEST(FitAffine, TwoPointsGiveTheLineThroughThem) {
  const std::vector<double> sizes{4 * kKiB, 1 * kGiB};
  const std::vector<double> times{12e-6, 51e-3};
  const AffineFit fit = fit_affine(sizes, times);
  const double beta = (times[1] - times[0]) / (sizes[1] - sizes[0]);
  EXPECT_LT(relative_difference(fit.beta_s_per_byte, beta), 1e-12);
  EXPECT_LT(relative_difference(fit.alpha_s, times[0] - beta * sizes[0]), 1e-9);
}

// A latency term is never negative: the line through times whose intercept would be -2 us is
// refitted through the origin, and says so.
TEST(FitAffine, NegativeInterceptIsHeldAtZero) {
  const std::vector<double> sizes = synthetic::geometric_sizes(1024 * kKiB, kGiB);
  const double alpha = -2e-6, beta = 1 / 10e9;
  const std::vector<double> times = line_times(sizes, alpha, beta);
  const AffineFit fit = fit_affine(sizes, times);
  EXPECT_EQ(fit.alpha_s, 0);
  EXPECT_TRUE(fit.alpha_at_bound);
  // The proportional fit of relative error: beta within the spread of times[i] / sizes[i].
  EXPECT_GT(fit.beta_s_per_byte, times.front() / sizes.front());
  EXPECT_LT(fit.beta_s_per_byte, times.back() / sizes.back());
  EXPECT_FALSE(fit_affine(sizes, line_times(sizes, 2e-6, beta)).alpha_at_bound);
}

TEST(FitAffine, NegativeSlopeComesOutNegative) {
  const std::vector<double> sizes = synthetic::geometric_sizes(8, 1024 * kKiB);
  const double alpha = 10e-6, beta = -1e-12;
  const AffineFit fit = fit_affine(sizes, line_times(sizes, alpha, beta));
  EXPECT_LT(fit.beta_s_per_byte, 0);
  EXPECT_LT(relative_difference(fit.beta_s_per_byte, beta), 1e-9);
}

// Relative weighting alone already gives a tripled time a ninth of the weight; Huber must
// still cut its pull by far more.
TEST(FitAffine, OneTripledTimeMovesTheHuberFitFarLessThanLeastSquares) {
  const std::vector<double> sizes = synthetic::standard_sizes();
  const std::vector<synthetic::TrueSegment> truth{{0, 5e-6, 1 / 10e9}};
  const std::vector<double> clean = synthetic::make_curve(truth, sizes, 1, 0.01, 42).medians;
  std::vector<double> with_outlier = clean;
  with_outlier[12] *= 3;

  const double huber_shift =
      worst_relative_shift(fit_affine(sizes, with_outlier), fit_affine(sizes, clean), sizes);
  const double least_squares_shift = worst_relative_shift(
      relative_least_squares(sizes, with_outlier), relative_least_squares(sizes, clean), sizes);
  EXPECT_GT(least_squares_shift, 0.005);  // the outlier does drag a non-robust fit
  EXPECT_LT(huber_shift, least_squares_shift / 5);
}

TEST(FitAffine, TenPercentOffAtTheLargestSizeDoesNotSwampTheSmallSizes) {
  const std::vector<double> sizes = synthetic::geometric_sizes(8, kGiB);
  const double alpha = 5e-6, beta = 1 / 10e9;
  std::vector<double> times = line_times(sizes, alpha, beta);
  // 1% noise everywhere, alternating, so that no point is an outlier to down-weight and the
  // weighting alone decides; then the largest size 10% slow.
  for (std::size_t i = 0; i < times.size(); ++i) times[i] *= i % 2 == 0 ? 1.01 : 0.99;
  times.back() *= 1.10;

  const AffineFit fit = fit_affine(sizes, times);
  EXPECT_LT(relative_difference(fit.alpha_s, alpha), 0.03);
  EXPECT_LT(relative_difference(fit.alpha_s + fit.beta_s_per_byte * sizes.front(), times.front()),
            0.02);
}

TEST(FitAffine, GivenScaleFixesTheHuberThresholdOfTheLoss) {
  const std::vector<double> sizes{1e3, 2e3, 4e3, 8e3, 16e3};
  const std::vector<double> times{1.00e-6, 1.21e-6, 1.39e-6, 1.80e-6, 4.00e-6};
  const double scale = 0.01;
  const AffineFit fit = fit_affine(sizes, times, scale);

  const auto loss_at = [&](double alpha, double beta) {
    const double threshold = 1.345 * scale;
    double loss = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const double residual = std::abs((times[i] - alpha - beta * sizes[i]) / times[i]);
      loss +=
          residual <= threshold ? residual * residual / 2 : threshold * (residual - threshold / 2);
    }
    return loss;
  };
  EXPECT_NEAR(fit.loss, loss_at(fit.alpha_s, fit.beta_s_per_byte), 1e-12);
  // IRLS has reached the minimum of that loss: any step away costs.
  for (double step : {-1e-3, 1e-3}) {
    EXPECT_GT(loss_at(fit.alpha_s * (1 + step), fit.beta_s_per_byte), fit.loss);
    EXPECT_GT(loss_at(fit.alpha_s, fit.beta_s_per_byte * (1 + step)), fit.loss);
  }
  EXPECT_GT(fit.max_rel_error, 1.345 * scale);  // the last time does lie in the linear part
}

TEST(FitAffine, RejectsWhatItCannotFit) {
  const std::vector<double> two{1, 2};
  EXPECT_THROW(fit_affine(two, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(fit_affine(std::vector<double>{1}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(fit_affine(std::vector<double>{4, 4}, two), std::invalid_argument);
  EXPECT_THROW(fit_affine(two, std::vector<double>{1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace collbench
