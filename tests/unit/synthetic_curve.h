#pragma once
// Synthetic timing curves for the fit tests: a piecewise Hockney truth, raw samples per size
// with multiplicative lognormal noise of median 1 (so the true time is the samples' median).
// The normal draws are a hand-written Box-Muller on std::mt19937_64, whose output the standard
// fixes, so a seed gives the same samples with any standard library.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace collbench::synthetic {

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * kKiB;
constexpr double kGiB = 1024 * kMiB;

struct TrueSegment {
  double from_bytes = 0;  // the segment holds for sizes >= from_bytes, up to the next one's
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};

struct Curve {
  std::vector<double> sizes;
  std::vector<std::vector<double>> samples;  // per size
  std::vector<double> medians;               // per size, numpy.median of its samples
};

// first, first·factor, ... up to last inclusive.
inline std::vector<double> geometric_sizes(double first, double last, double factor = 2) {
  std::vector<double> sizes;
  for (double size = first; size <= last * (1 + 1e-12); size *= factor) sizes.push_back(size);
  return sizes;
}

// segments ordered by from_bytes; the first holds for all sizes below the second's start.
inline double true_time(std::span<const TrueSegment> segments, double size) {
  const TrueSegment* active = &segments.front();
  for (const TrueSegment& segment : segments)
    if (size >= segment.from_bytes) active = &segment;
  return active->alpha_s + active->beta_s_per_byte * size;
}

class StandardNormal {
 public:
  explicit StandardNormal(std::uint64_t seed) : engine_(seed) {}

  double operator()() {
    // Uniform in (0, 1]: 53 random bits, shifted off zero so the logarithm is finite.
    const auto uniform = [this] { return static_cast<double>((engine_() >> 11) + 1) * 0x1p-53; };
    const double radius = std::sqrt(-2 * std::log(uniform()));
    return radius * std::cos(2 * std::numbers::pi * uniform());
  }

 private:
  std::mt19937_64 engine_;
};

inline double median_of(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t middle = values.size() / 2;
  if (values.size() % 2 == 1) return values[middle];
  return (values[middle - 1] + values[middle]) / 2;
}

// `truth` gives the true time of a size; sigma is the standard deviation of the log of the
// noise factor (0.03: about 3% noise).
template <typename Truth>
inline Curve make_curve_of(Truth truth_of, std::span<const double> sizes,
                           std::size_t samples_per_size, double sigma, std::uint64_t seed) {
  StandardNormal normal(seed);
  Curve curve;
  curve.sizes.assign(sizes.begin(), sizes.end());
  for (double size : sizes) {
    const double truth = truth_of(size);
    std::vector<double> samples(samples_per_size);
    for (double& sample : samples) sample = truth * std::exp(sigma * normal());
    curve.medians.push_back(median_of(samples));
    curve.samples.push_back(std::move(samples));
  }
  return curve;
}

inline Curve make_curve(std::span<const TrueSegment> segments, std::span<const double> sizes,
                        std::size_t samples_per_size, double sigma, std::uint64_t seed) {
  return make_curve_of([segments](double size) { return true_time(segments, size); }, sizes,
                       samples_per_size, sigma, seed);
}

// Sizes 8 B .. 64 MiB, factor 2: the 24 sizes of a typical curve.
inline std::vector<double> standard_sizes() { return geometric_sizes(8, 64.0 * 1024 * 1024); }

}  // namespace collbench::synthetic
