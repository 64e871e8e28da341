#include "harness/fit/piecewise_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace collbench {
namespace {

constexpr double kMadToSigma = 1.4826;
// Mean squared relative residual below which fits count as exact: without it, rounding noise
// in ln(RSS) would decide between segmentations of exact data.
constexpr double kMeanSquareFloor = 1e-20;

void check_curve(std::span<const double> sizes, std::span<const double> times) {
  if (sizes.size() != times.size())
    throw std::invalid_argument("piecewise fit: sizes and times differ in length");
  if (sizes.size() < 2) throw std::invalid_argument("piecewise fit: needs at least two sizes");
  if (std::ranges::adjacent_find(sizes, std::greater_equal<>()) != sizes.end())
    throw std::invalid_argument("piecewise fit: sizes must be ascending and distinct");
}

// The curve's noise level in relative units, one for all its segments so that their Huber
// losses compare. Each interior time is set against the straight line through its two
// neighbours (exact on any affine stretch, whatever the spacing), the deviation divided by the
// noise its neighbours add to it; MAD of those. A jump or kink spoils only the triples that
// straddle it, which the median ignores.
double curve_relative_scale(std::span<const double> sizes, std::span<const double> times) {
  std::vector<double> deviations;
  for (std::size_t i = 1; i + 1 < sizes.size(); ++i) {
    const double left_share = (sizes[i + 1] - sizes[i]) / (sizes[i + 1] - sizes[i - 1]);
    const double left = left_share * times[i - 1] / times[i];
    const double right = (1 - left_share) * times[i + 1] / times[i];
    const double deviation = 1 - left - right;
    deviations.push_back(std::abs(deviation) / std::sqrt(1 + left * left + right * right));
  }
  if (deviations.empty()) return 0;
  const auto middle = deviations.begin() + static_cast<std::ptrdiff_t>(deviations.size() / 2);
  std::nth_element(deviations.begin(), middle, deviations.end());
  return kMadToSigma * *middle;
}

AffineFit fit_range(std::span<const double> sizes, std::span<const double> times, std::size_t first,
                    std::size_t last, double relative_scale) {
  const std::size_t count = last - first + 1;
  return fit_affine(sizes.subspan(first, count), times.subspan(first, count), relative_scale);
}

// BIC on relative residuals, a breakpoint counting as three coefficients (the modified BIC of
// Hall, Osborn & Sakkas 2013): the breakpoint is searched for, so it buys more fit than one
// parameter, and with the textbook count of one a curve of 24 sizes and 2% noise gains
// spurious segments in a quarter of cases (2% with three).
double bic_of(const std::vector<Segment>& segments, std::size_t size_count) {
  constexpr double kCoefficientsPerSegment = 2;
  constexpr double kCoefficientsPerBreakpoint = 3;
  double squares = 0;
  for (const Segment& segment : segments) {
    const double rms = segment.fit.rms_rel_error;
    squares += rms * rms * static_cast<double>(segment.last - segment.first + 1);
  }
  const double count = static_cast<double>(size_count);
  const double breakpoints = static_cast<double>(segments.size() - 1);
  const double coefficients = kCoefficientsPerSegment * static_cast<double>(segments.size()) +
                              kCoefficientsPerBreakpoint * breakpoints;
  return count * std::log(std::max(squares / count, kMeanSquareFloor)) +
         coefficients * std::log(count);
}

}  // namespace

PiecewiseFit fit_piecewise(std::span<const double> sizes, std::span<const double> times,
                           const PiecewiseOptions& options) {
  check_curve(sizes, times);
  const std::size_t count = sizes.size();
  const double scale = curve_relative_scale(sizes, times);
  // An affine piece needs two sizes; a curve too short for one full segment is one segment.
  const std::size_t min_length =
      std::min(count, std::max<std::size_t>(2, options.min_sizes_per_segment));
  const std::size_t max_segments = std::clamp<std::size_t>(
      count / min_length, 1, std::max<std::size_t>(1, options.max_segments));

  // Every admissible range fitted once; the DP below only adds their losses.
  std::vector<AffineFit> range_fits(count * count);
  for (std::size_t first = 0; first < count; ++first)
    for (std::size_t last = first + min_length - 1; last < count; ++last)
      range_fits[first * count + last] = fit_range(sizes, times, first, last, scale);
  const auto range_loss = [&](std::size_t first, std::size_t last) {
    return range_fits[first * count + last].loss;
  };

  // best_loss[k][j]: least loss of sizes 0..j cut into k + 1 segments; last_start: where the
  // last of those segments begins.
  constexpr double kUnreachable = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best_loss(max_segments,
                                             std::vector<double>(count, kUnreachable));
  std::vector<std::vector<std::size_t>> last_start(max_segments,
                                                   std::vector<std::size_t>(count, 0));
  for (std::size_t last = min_length - 1; last < count; ++last)
    best_loss[0][last] = range_loss(0, last);
  for (std::size_t k = 1; k < max_segments; ++k) {
    for (std::size_t last = (k + 1) * min_length - 1; last < count; ++last) {
      for (std::size_t start = k * min_length; start + min_length - 1 <= last; ++start) {
        const double loss = best_loss[k - 1][start - 1] + range_loss(start, last);
        if (loss < best_loss[k][last]) {
          best_loss[k][last] = loss;
          last_start[k][last] = start;
        }
      }
    }
  }

  PiecewiseFit best;
  best.bic = kUnreachable;
  for (std::size_t k = 0; k < max_segments; ++k) {
    if (best_loss[k][count - 1] == kUnreachable) continue;
    std::vector<Segment> segments(k + 1);
    std::size_t last = count - 1;
    for (std::size_t piece = k + 1; piece-- > 0;) {
      const std::size_t first = piece == 0 ? 0 : last_start[piece][last];
      segments[piece] = Segment{first, last, range_fits[first * count + last]};
      last = first - 1;
    }
    const double bic = bic_of(segments, count);
    // Strictly better only: on a tie the fewer segments stay.
    if (bic < best.bic) best = PiecewiseFit{std::move(segments), bic};
  }
  return best;
}

PiecewiseFit refit_segments(const PiecewiseFit& shape, std::span<const double> sizes,
                            std::span<const double> times) {
  check_curve(sizes, times);
  if (shape.segments.empty()) throw std::invalid_argument("refit_segments: no segments");
  const double scale = curve_relative_scale(sizes, times);
  PiecewiseFit refit;
  for (const Segment& segment : shape.segments) {
    if (segment.first > segment.last || segment.last >= sizes.size())
      throw std::invalid_argument("refit_segments: segment outside the sizes");
    refit.segments.push_back(Segment{segment.first, segment.last,
                                     fit_range(sizes, times, segment.first, segment.last, scale)});
  }
  refit.bic = bic_of(refit.segments, sizes.size());
  return refit;
}

}  // namespace collbench
