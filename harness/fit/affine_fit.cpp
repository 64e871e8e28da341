#include "harness/fit/affine_fit.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <vector>

#include "harness/stats/robust_scale.h"

namespace collbench {
namespace {

// Huber's constant: 95% efficiency against least squares when the residuals are normal.
constexpr double kHuberTuning = 1.345;
// Exact data has residuals of rounding size; without a floor the threshold would shrink with
// them and IRLS would keep reweighting noise in the last bits.
constexpr double kScaleFloor = 1e-6;
constexpr int kMaxIterations = 50;
// Fitted times that move by less than this (relative) between iterations have settled.
constexpr double kSettledRelativeChange = 1e-12;

struct Line {
  double alpha = 0;
  double beta = 0;
};

void check_arguments(std::span<const double> sizes, std::span<const double> times) {
  if (sizes.size() != times.size())
    throw std::invalid_argument("fit_affine: sizes and times differ in length");
  if (sizes.size() < 2) throw std::invalid_argument("fit_affine: needs at least two sizes");
  if (std::ranges::any_of(times, [](double time) { return !(time > 0); }))
    throw std::invalid_argument("fit_affine: times must be positive");
  if (std::ranges::all_of(sizes, [&](double size) { return size == sizes.front(); }))
    throw std::invalid_argument("fit_affine: sizes are all equal");
}

// Least squares of T = beta·n, weighted as below.
Line weighted_proportion(std::span<const double> sizes, std::span<const double> times,
                         std::span<const double> robustness) {
  double size_squares = 0;
  double products = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double weight = robustness[i] / (times[i] * times[i]);
    size_squares += weight * sizes[i] * sizes[i];
    products += weight * sizes[i] * times[i];
  }
  return Line{0, products / size_squares};
}

// Least squares of T = alpha + beta·n weighted by robustness_i / T_i², i.e. on relative error;
// through the origin when `through_origin`. Centring n on its weighted mean makes the 2x2
// normal system diagonal, so nothing is solved and nothing cancels, whether sizes are 8 bytes
// or a gigabyte.
Line weighted_line(std::span<const double> sizes, std::span<const double> times,
                   std::span<const double> robustness, bool through_origin) {
  if (through_origin) return weighted_proportion(sizes, times, robustness);
  double weight_sum = 0;
  double mean_size = 0;
  double mean_time = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double weight = robustness[i] / (times[i] * times[i]);
    weight_sum += weight;
    mean_size += weight * sizes[i];
    mean_time += weight * times[i];
  }
  mean_size /= weight_sum;
  mean_time /= weight_sum;
  double size_spread = 0;
  double covariance = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double weight = robustness[i] / (times[i] * times[i]);
    const double centred_size = sizes[i] - mean_size;
    size_spread += weight * centred_size * centred_size;
    covariance += weight * centred_size * (times[i] - mean_time);
  }
  Line line;
  line.beta = covariance / size_spread;
  line.alpha = mean_time - line.beta * mean_size;
  return line;
}

void relative_residuals(std::span<const double> sizes, std::span<const double> times,
                        const Line& line, std::vector<double>& residuals) {
  for (std::size_t i = 0; i < sizes.size(); ++i)
    residuals[i] = (times[i] - line.alpha - line.beta * sizes[i]) / times[i];
}

double median_absolute(std::span<const double> values) {
  std::vector<double> absolute(values.size());
  std::ranges::transform(values, absolute.begin(), [](double value) { return std::abs(value); });
  const auto middle = absolute.begin() + static_cast<std::ptrdiff_t>(absolute.size() / 2);
  std::nth_element(absolute.begin(), middle, absolute.end());
  if (absolute.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(absolute.begin(), middle)) / 2;
}

// Residuals are centred on zero by the fit, so their spread is measured about zero.
double huber_threshold(std::span<const double> residuals, std::optional<double> given_scale) {
  const double scale = given_scale ? *given_scale : kMadToSigma * median_absolute(residuals);
  return kHuberTuning * std::max(scale, kScaleFloor);
}

// Huber's rho in the units of the relative residual itself (not divided by the scale): r²/2
// inside the threshold, linear outside. With one threshold per curve, losses of its segments
// add up and compare.
double huber_loss(double residual, double threshold) {
  const double magnitude = std::abs(residual);
  if (magnitude <= threshold) return residual * residual / 2;
  return threshold * (magnitude - threshold / 2);
}

bool settled(std::span<const double> sizes, std::span<const double> times, const Line& before,
             const Line& after) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double change = (after.alpha - before.alpha) + (after.beta - before.beta) * sizes[i];
    if (std::abs(change) > kSettledRelativeChange * times[i]) return false;
  }
  return true;
}

AffineFit fit_huber(std::span<const double> sizes, std::span<const double> times,
                    std::optional<double> given_scale, bool through_origin) {
  std::vector<double> robustness(sizes.size(), 1.0);
  std::vector<double> residuals(sizes.size());
  Line line = weighted_line(sizes, times, robustness, through_origin);
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    relative_residuals(sizes, times, line, residuals);
    const double threshold = huber_threshold(residuals, given_scale);
    for (std::size_t i = 0; i < sizes.size(); ++i)
      robustness[i] = std::min(1.0, threshold / std::abs(residuals[i]));
    const Line next = weighted_line(sizes, times, robustness, through_origin);
    const bool done = settled(sizes, times, line, next);
    line = next;
    if (done) break;
  }

  relative_residuals(sizes, times, line, residuals);
  const double threshold = huber_threshold(residuals, given_scale);
  AffineFit fit;
  fit.alpha_s = line.alpha;
  fit.alpha_at_bound = through_origin;
  fit.beta_s_per_byte = line.beta;
  double squares = 0;
  for (double residual : residuals) {
    squares += residual * residual;
    fit.max_rel_error = std::max(fit.max_rel_error, std::abs(residual));
    fit.loss += huber_loss(residual, threshold);
  }
  fit.rms_rel_error = std::sqrt(squares / static_cast<double>(residuals.size()));
  return fit;
}

}  // namespace

// The best line, or the best proportion where that line's intercept is negative.
AffineFit fit_bounded(std::span<const double> sizes, std::span<const double> times,
                      std::optional<double> given_scale) {
  check_arguments(sizes, times);
  const AffineFit free = fit_huber(sizes, times, given_scale, false);
  return free.alpha_s >= 0 ? free : fit_huber(sizes, times, given_scale, true);
}

AffineFit fit_affine(std::span<const double> sizes, std::span<const double> times) {
  return fit_bounded(sizes, times, std::nullopt);
}

AffineFit fit_affine(std::span<const double> sizes, std::span<const double> times,
                     double relative_scale) {
  return fit_bounded(sizes, times, relative_scale);
}

}  // namespace collbench
