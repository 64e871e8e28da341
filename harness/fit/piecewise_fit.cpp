#include "harness/fit/piecewise_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "harness/stats/robust_scale.h"

namespace collbench {
namespace {

constexpr double kUnreachable = std::numeric_limits<double>::infinity();
// Held-out errors below this count as exact: without it, rounding noise in the errors of exact
// data would decide between segment counts.
constexpr double kErrorFloor = 1e-9;

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

std::size_t shortest_segment(std::size_t sizes, const PiecewiseOptions& options) {
  // An affine piece needs two sizes; a curve too short for one full segment is one segment.
  return std::min(sizes, std::max<std::size_t>(2, options.min_sizes_per_segment));
}

// The segmentations of least Huber loss into each segment count: an exact dynamic program over
// contiguous segments, worked out from the top down so that a range is fitted only when a
// segmentation asked for can use it. A bootstrap replicate asks for one count: with one or two
// segments that fits O(n) ranges instead of all O(n²).
class Segmentations {
 public:
  Segmentations(std::span<const double> sizes, std::span<const double> times,
                const PiecewiseOptions& options, double scale)
      : sizes_(sizes),
        times_(times),
        scale_(scale),
        min_length_(shortest_segment(sizes.size(), options)),
        most_segments_(std::clamp<std::size_t>(sizes.size() / min_length_, 1,
                                               std::max<std::size_t>(1, options.max_segments))),
        range_fits_(sizes.size() * sizes.size()),
        cuts_(most_segments_ * sizes.size()) {}

  // The most segments a segmentation of this curve may have.
  std::size_t most_segments() const { return most_segments_; }

  // The least-loss segmentation into `count` segments; empty where that count does not fit.
  std::vector<Segment> best(std::size_t count) {
    const std::size_t last_size = sizes_.size() - 1;
    if (count < 1 || count > most_segments_ || cut(count - 1, last_size).loss == kUnreachable)
      return {};
    std::vector<Segment> segments(count);
    std::size_t last = last_size;
    for (std::size_t piece = count; piece-- > 0;) {
      const std::size_t first = piece == 0 ? 0 : cut(piece, last).start;
      segments[piece] = Segment{first, last, range_fit(first, last)};
      last = first - 1;
    }
    return segments;
  }

 private:
  // Sizes 0..last cut into k + 1 segments at least loss, and where the last of them begins.
  struct Cut {
    bool known = false;
    double loss = kUnreachable;
    std::size_t start = 0;
  };

  const AffineFit& range_fit(std::size_t first, std::size_t last) {
    std::optional<AffineFit>& fit = range_fits_[first * sizes_.size() + last];
    if (!fit)
      fit = fit_affine(sizes_.subspan(first, last - first + 1),
                       times_.subspan(first, last - first + 1), scale_);
    return *fit;
  }

  const Cut& cut(std::size_t k, std::size_t last) {
    Cut& cut_here = cuts_[k * sizes_.size() + last];
    if (cut_here.known) return cut_here;
    cut_here.known = true;
    if (last + 1 < (k + 1) * min_length_) return cut_here;
    if (k == 0) {
      cut_here.loss = range_fit(0, last).loss;
      return cut_here;
    }
    for (std::size_t start = k * min_length_; start + min_length_ - 1 <= last; ++start) {
      const double loss = cut(k - 1, start - 1).loss + range_fit(start, last).loss;
      if (loss < cut_here.loss) {
        cut_here.loss = loss;
        cut_here.start = start;
      }
    }
    return cut_here;
  }

  std::span<const double> sizes_, times_;
  double scale_;
  std::size_t min_length_, most_segments_;
  std::vector<std::optional<AffineFit>> range_fits_;  // [first * sizes + last]
  std::vector<Cut> cuts_;                             // [k * sizes + last]
};

// For every segment count up to `max_count` that this curve allows, its best segmentation;
// empty where that count does not fit.
std::vector<std::vector<Segment>> best_segmentations(std::span<const double> sizes,
                                                     std::span<const double> times,
                                                     std::size_t max_count,
                                                     const PiecewiseOptions& options,
                                                     double scale) {
  Segmentations segmentations(sizes, times, options, scale);
  std::vector<std::vector<Segment>> best(
      std::clamp<std::size_t>(max_count, 1, segmentations.most_segments()));
  for (std::size_t k = 0; k < best.size(); ++k) best[k] = segmentations.best(k + 1);
  return best;
}

// held_out[k][i]: the signed relative error at size i of the best (k + 1)-segment fit made
// without it; NaN where no such fit exists.
std::vector<std::vector<double>> held_out_errors(std::span<const double> sizes,
                                                 std::span<const double> times,
                                                 std::size_t max_count,
                                                 const PiecewiseOptions& options, double scale) {
  const std::size_t count = sizes.size();
  std::vector<std::vector<double>> errors(max_count, std::vector<double>(count, std::nan("")));
  std::vector<double> kept_sizes, kept_times;
  for (std::size_t out = 0; out < count; ++out) {
    kept_sizes.clear();
    kept_times.clear();
    for (std::size_t i = 0; i < count; ++i)
      if (i != out) {
        kept_sizes.push_back(sizes[i]);
        kept_times.push_back(times[i]);
      }
    const auto fits = best_segmentations(kept_sizes, kept_times, max_count, options, scale);
    for (std::size_t k = 0; k < fits.size(); ++k) {
      if (fits[k].empty()) continue;
      const PiecewiseFit fit{fits[k], {}, kept_times};
      errors[k][out] = (predict(fit, kept_sizes, sizes[out]) - times[out]) / times[out];
    }
  }
  return errors;
}

// The mean held-out error of a segmentation, leaving out the two sizes on either side of each
// of its breakpoints: held out, such a size could lie on either side of the switch, which the
// other sizes cannot tell, so its error says nothing about the model.
double mean_magnitude(const std::vector<double>& errors, const std::vector<Segment>& segments) {
  std::vector<bool> beside_a_break(errors.size(), false);
  for (std::size_t k = 1; k < segments.size(); ++k) {
    beside_a_break[segments[k].first] = true;
    beside_a_break[segments[k].first - 1] = true;
  }
  double sum = 0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (std::isnan(errors[i])) return kUnreachable;
    if (beside_a_break[i]) continue;
    sum += std::abs(errors[i]);
    ++counted;
  }
  return counted ? std::max(sum / static_cast<double>(counted), kErrorFloor) : kUnreachable;
}

}  // namespace

double PiecewiseFit::misfit() const {
  if (held_out_errors.empty()) return std::nan("");
  std::vector<double> magnitudes;
  for (double error : held_out_errors) magnitudes.push_back(std::abs(error));
  const auto middle = magnitudes.begin() + static_cast<std::ptrdiff_t>(magnitudes.size() / 2);
  std::nth_element(magnitudes.begin(), middle, magnitudes.end());
  if (magnitudes.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(magnitudes.begin(), middle)) / 2;
}

PiecewiseFit fit_piecewise(std::span<const double> sizes, std::span<const double> times,
                           const PiecewiseOptions& options) {
  check_curve(sizes, times);
  const double scale = curve_relative_scale(sizes, times);
  const auto fits = best_segmentations(sizes, times, options.max_segments, options, scale);
  // Leaving a size out must leave at least one full segment.
  if (sizes.size() <= shortest_segment(sizes.size(), options))
    return PiecewiseFit{fits[0], {}, {times.begin(), times.end()}};
  const auto errors = held_out_errors(sizes, times, fits.size(), options, scale);
  // One more segment at a time while the data demand it.
  const auto demanded = [&](std::size_t k) {
    return mean_magnitude(errors[k], fits[k]) * options.required_gain <=
           mean_magnitude(errors[k - 1], fits[k - 1]);
  };
  std::size_t chosen = 0;
  while (chosen + 1 < fits.size() && !fits[chosen + 1].empty() && demanded(chosen + 1)) ++chosen;
  return PiecewiseFit{fits[chosen], errors[chosen], {times.begin(), times.end()}};
}

PiecewiseFit fit_segments(std::span<const double> sizes, std::span<const double> times,
                          std::size_t count, const PiecewiseOptions& options) {
  check_curve(sizes, times);
  Segmentations segmentations(sizes, times, options, curve_relative_scale(sizes, times));
  for (std::size_t k = std::clamp<std::size_t>(count, 1, segmentations.most_segments()); k > 0; --k)
    if (auto segments = segmentations.best(k); !segments.empty())
      return PiecewiseFit{std::move(segments), {}, {times.begin(), times.end()}};
  throw std::logic_error("fit_segments: no segmentation fits");
}

double predict(const PiecewiseFit& fit, std::span<const double> sizes, double size) {
  const Segment* best = &fit.segments.front();
  double best_distance = kUnreachable;
  for (const auto& segment : fit.segments) {
    const double low = sizes[segment.first], high = sizes[segment.last];
    const double distance =
        size < low ? std::log(low / size) : size > high ? std::log(size / high) : 0;
    if (distance < best_distance) {
      best_distance = distance;
      best = &segment;
    }
  }
  return best->fit.alpha_s + best->fit.beta_s_per_byte * size;
}

}  // namespace collbench
