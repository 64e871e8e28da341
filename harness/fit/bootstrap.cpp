#include "harness/fit/bootstrap.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>

namespace collbench {
namespace {

// Uniform index below `bound` by rejection, not std::uniform_int_distribution, whose algorithm
// differs between standard libraries: the same seed gives the same intervals everywhere.
std::size_t uniform_index(std::mt19937_64& engine, std::size_t bound) {
  const std::uint64_t range = bound;
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = engine();
  while (draw >= limit) draw = engine();
  return static_cast<std::size_t>(draw % range);
}

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
  if (fraction == 0 || below + 1 == sorted.size()) return sorted[below];
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

Interval central_95(std::vector<double>& values) {
  std::ranges::sort(values);
  return Interval{percentile_of_sorted(values, 2.5), percentile_of_sorted(values, 97.5)};
}

void check_arguments(const PiecewiseFit& fit, std::span<const double> sizes,
                     std::span<const std::vector<double>> samples, int replicates) {
  if (samples.size() != sizes.size())
    throw std::invalid_argument("bootstrap: sizes and samples differ in length");
  if (std::ranges::any_of(samples, [](const auto& size_samples) { return size_samples.empty(); }))
    throw std::invalid_argument("bootstrap: a size has no samples");
  if (replicates < 1) throw std::invalid_argument("bootstrap: needs at least one replicate");
  if (fit.segments.empty()) throw std::invalid_argument("bootstrap: the fit has no segments");
}

}  // namespace

std::vector<SegmentIntervals> bootstrap_intervals(const PiecewiseFit& fit,
                                                  std::span<const double> sizes,
                                                  std::span<const std::vector<double>> samples,
                                                  int replicates, std::uint64_t seed) {
  check_arguments(fit, sizes, samples, replicates);
  const std::size_t segment_count = fit.segments.size();
  const auto replicate_count = static_cast<std::size_t>(replicates);
  // Per segment, per replicate: the refitted alpha, beta and n½.
  std::vector<std::vector<double>> alphas(segment_count), betas(segment_count),
      half_sizes(segment_count);

  std::mt19937_64 engine(seed);
  std::vector<double> medians(sizes.size());
  std::vector<double> resample;
  for (std::size_t replicate = 0; replicate < replicate_count; ++replicate) {
    for (std::size_t size = 0; size < sizes.size(); ++size) {
      const std::vector<double>& original = samples[size];
      resample.resize(original.size());
      for (double& value : resample) value = original[uniform_index(engine, original.size())];
      medians[size] = median_in_place(resample);
    }
    const PiecewiseFit refit = refit_segments(fit, sizes, medians);
    for (std::size_t segment = 0; segment < segment_count; ++segment) {
      const AffineFit& line = refit.segments[segment].fit;
      alphas[segment].push_back(line.alpha_s);
      betas[segment].push_back(line.beta_s_per_byte);
      half_sizes[segment].push_back(line.alpha_s / line.beta_s_per_byte);
    }
  }

  std::vector<SegmentIntervals> intervals(segment_count);
  for (std::size_t segment = 0; segment < segment_count; ++segment) {
    intervals[segment].alpha_s = central_95(alphas[segment]);
    intervals[segment].beta_s_per_byte = central_95(betas[segment]);
    intervals[segment].half_size_bytes = central_95(half_sizes[segment]);
  }
  return intervals;
}

}  // namespace collbench
