#include "harness/fit/bootstrap.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>

namespace collbench {
namespace {

// numpy.median: the mean of the two middle values when the count is even.
double median_in_place(std::vector<double>& values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

// numpy.percentile's default: linear between the closest ranks.
double percentile_of_sorted(const std::vector<double>& sorted, double percent) {
  const double rank = percent / 100 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(rank);
  const double fraction = rank - static_cast<double>(below);
  // Equal neighbours are their own percentile, infinite ones too (inf - inf is NaN).
  if (fraction == 0 || below + 1 == sorted.size() || sorted[below] == sorted[below + 1])
    return sorted[below];
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

Interval holding(Interval interval, double value) {
  return {std::min(interval.low, value), std::max(interval.high, value)};
}

// Per replicate: alpha, beta and n½ of one quantity (a segment, or the headline).
struct Draws {
  std::vector<double> alphas, betas, half_sizes;
  void add(double alpha, double beta) {
    alphas.push_back(alpha);
    betas.push_back(beta);
    half_sizes.push_back(half_size_of(alpha, beta));
  }
  // Each interval holds the fit's own value (`own`): the replicates can all fall on one side of
  // it, since a fit on relative error leans toward the replicates' lowered times and breakpoints
  // chosen afresh move its segments (measured: 104 of 240 intervals of two misfitting curves of
  // the VM, among them "bandwidth 1.91 [2.17, 33.7] GB/s"), and no output may print a value
  // outside its own interval.
  SegmentIntervals intervals(const AffineFit& own) {
    if (alphas.empty()) return {};
    return {holding(central_95(alphas), own.alpha_s),
            holding(central_95(betas), own.beta_s_per_byte),
            holding(central_95(half_sizes), half_size_of(own.alpha_s, own.beta_s_per_byte))};
  }
};

void check_arguments(const PiecewiseFit& fit, std::span<const double> sizes,
                     std::span<const std::vector<double>> samples, int replicates) {
  if (fit.segments.empty()) throw std::invalid_argument("bootstrap: the fit has no segments");
  if (fit.held_out_errors.size() != sizes.size())
    throw std::invalid_argument("bootstrap: the fit has no held-out error per size");
  if (samples.size() != sizes.size())
    throw std::invalid_argument("bootstrap: sizes and samples differ in length");
  if (replicates < 1) throw std::invalid_argument("bootstrap: needs at least one replicate");
}

// How far a size's median moves when its samples are resampled; 0 without samples.
class MedianShifts {
 public:
  explicit MedianShifts(std::span<const std::vector<double>> samples) : samples_(samples) {
    for (const auto& size_samples : samples) {
      std::vector<double> copy = size_samples;
      medians_.push_back(copy.empty() ? 0 : median_in_place(copy));
    }
  }
  double draw(std::size_t size, std::mt19937_64& engine) {
    const std::vector<double>& original = samples_[size];
    if (original.size() < 2) return 0;
    resample_.resize(original.size());
    for (double& value : resample_) value = original[uniform_index(engine, original.size())];
    return median_in_place(resample_) - medians_[size];
  }

 private:
  std::span<const std::vector<double>> samples_;
  std::vector<double> medians_;
  std::vector<double> resample_;
};

}  // namespace

double half_size_of(double alpha_s, double beta_s_per_byte) {
  if (alpha_s <= 0) return 0;
  if (beta_s_per_byte <= 0) return std::numeric_limits<double>::infinity();
  return alpha_s / beta_s_per_byte;
}

Interval central_95(std::vector<double> values) {
  std::ranges::sort(values);
  return Interval{percentile_of_sorted(values, 2.5), percentile_of_sorted(values, 97.5)};
}

CurveIntervals bootstrap_intervals(const PiecewiseFit& fit, std::span<const double> sizes,
                                   std::span<const std::vector<double>> samples, int replicates,
                                   std::uint64_t seed) {
  check_arguments(fit, sizes, samples, replicates);
  const std::size_t count = fit.segments.size();
  std::vector<double> model(sizes.size());
  // A segment fitted on relative error to a curve with a deep dip (a size measured ten times
  // faster than its neighbours) can fall below zero inside the sizes it covers; a replicate
  // starts from the measured time there, the only positive one.
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    model[i] = predict(fit, sizes, sizes[i]);
    if (!(model[i] > 0)) model[i] = fit.times.at(i);
  }

  std::vector<Draws> segment_draws(count);
  Draws headline;
  MedianShifts shifts(samples);
  std::mt19937_64 engine(seed);
  std::vector<double> times(sizes.size());
  for (int replicate = 0; replicate < replicates; ++replicate) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const double sign = (engine() >> 63) ? 1.0 : -1.0;
      const double missed = model[i] * (1 + sign * fit.held_out_errors[i]);
      times[i] = std::max(kSmallestShare * model[i], missed + shifts.draw(i, engine));
    }
    const PiecewiseFit refit = fit_segments(sizes, times, count);
    for (std::size_t k = 0; k < refit.segments.size() && k < count; ++k)
      segment_draws[k].add(refit.segments[k].fit.alpha_s, refit.segments[k].fit.beta_s_per_byte);
    headline.add(refit.segments.front().fit.alpha_s, refit.segments.back().fit.beta_s_per_byte);
  }

  CurveIntervals intervals;
  for (std::size_t k = 0; k < count; ++k)
    intervals.segments.push_back(segment_draws[k].intervals(fit.segments[k].fit));
  intervals.headline = headline.intervals(
      {.alpha_s = fit.segments.front().fit.alpha_s,
       .beta_s_per_byte = fit.segments.back().fit.beta_s_per_byte});
  return intervals;
}

}  // namespace collbench
