#include "harness/stats/summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace collbench {
namespace {

constexpr double kTailProbability = 0.025;  // each side of a two-sided 95% interval

// numpy's lerp: interpolating from the nearer end keeps the result exact at t = 0 and t = 1 and
// bit-identical to numpy.percentile.
double lerp_like_numpy(double a, double b, double t) {
  const double difference = b - a;
  return t >= 0.5 ? b - difference * (1 - t) : a + difference * t;
}

// log P(Binomial(n, 1/2) = k). lgamma keeps it finite where 2^-n underflows (n > 1074).
double log_binomial_half_pmf(std::size_t n, std::size_t k) {
  const auto nd = static_cast<double>(n);
  const auto kd = static_cast<double>(k);
  return std::lgamma(nd + 1) - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) -
         nd * std::numbers::ln2;
}

// P(Binomial(n, 1/2) < l), summed from the largest term down with the ratio
// pmf(k-1) / pmf(k) = k / (n-k+1). Below the mode the ratios shrink, so once the current term
// times r / (1 - r) (a bound on the whole remaining tail) is negligible the rest can be dropped;
// that makes the cost O(sqrt(n)) instead of O(n).
double binomial_half_cdf_below(std::size_t n, std::size_t l) {
  if (l == 0) return 0;
  constexpr double kNegligible = 1e-17;
  const auto nd = static_cast<double>(n);
  std::size_t k = l - 1;
  double term = std::exp(log_binomial_half_pmf(n, k));
  double sum = term;
  while (k > 0) {
    const double ratio = static_cast<double>(k) / (nd - static_cast<double>(k) + 1);
    if (ratio < 1 && term * ratio / (1 - ratio) <= sum * kNegligible) break;
    term *= ratio;
    sum += term;
    --k;
  }
  return sum;
}

// Largest l with P(Binomial(n, 1/2) < l) <= 2.5%, or 0 when even l = 1 is too likely (n < 6).
// The normal approximation lands within a step or two of it; the exact CDF settles the rest.
std::size_t exact_median_interval_rank(std::size_t n) {
  const auto nd = static_cast<double>(n);
  const double approximate = nd / 2 + 0.5 - 0.98 * std::sqrt(nd);
  auto rank = static_cast<std::size_t>(std::max(0.0, std::floor(approximate)));
  while (rank > 0 && binomial_half_cdf_below(n, rank) > kTailProbability) --rank;
  while (binomial_half_cdf_below(n, rank + 1) <= kTailProbability) ++rank;
  return rank;
}

double mean_of(std::span<const double> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// Two passes around the mean rather than sum of squares, which cancels badly when the spread is
// small next to the mean (the usual case for timings).
double sample_stddev_of(std::span<const double> values, double mean) {
  if (values.size() < 2) return 0;
  double squared_deviations = 0;
  for (double value : values) squared_deviations += (value - mean) * (value - mean);
  return std::sqrt(squared_deviations / static_cast<double>(values.size() - 1));
}

}  // namespace

std::size_t median_interval_rank(std::size_t n) {
  // A stopping rule asks after every sample, a sweep for the same counts point after point:
  // each count's rank is computed once per thread (the exact CDF costs O(sqrt(n)) and a few
  // lgamma calls), indexed by the count up to kMemoizedCounts (8 MiB); a count beyond, such as a
  // damaged file holds, is computed each time rather than grow the memo to it.
  constexpr std::size_t kMemoizedCounts = std::size_t{1} << 20;
  if (n >= kMemoizedCounts) return exact_median_interval_rank(n);
  constexpr std::size_t kUnknown = static_cast<std::size_t>(-1);
  thread_local std::vector<std::size_t> known;
  if (n >= known.size())
    known.resize(std::min(std::max(n + 1, 2 * known.size()), kMemoizedCounts), kUnknown);
  if (known[n] == kUnknown) known[n] = exact_median_interval_rank(n);
  return known[n];
}

double percentile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q / 100 * static_cast<double>(sorted.size() - 1);
  const double below = std::floor(position);
  const auto below_index = static_cast<std::size_t>(below);
  const std::size_t above_index = std::min(below_index + 1, sorted.size() - 1);
  return lerp_like_numpy(sorted[below_index], sorted[above_index], position - below);
}

double median_by_selection(std::span<double> values) { return percentile_by_selection(values, 50); }

double percentile_by_selection(std::span<double> values, double q) {
  if (values.empty()) return 0;
  const double position = q / 100 * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(below);
  std::nth_element(values.begin(), nth, values.end());
  const double above = below + 1 < values.size() ? *std::min_element(nth + 1, values.end()) : *nth;
  return lerp_like_numpy(*nth, above, position - static_cast<double>(below));
}

MedianInterval median_interval_of_sorted(std::span<const double> sorted) {
  if (sorted.empty()) return {};
  const std::size_t rank = median_interval_rank(sorted.size());
  if (rank == 0) return {.low = sorted.front(), .high = sorted.back(), .covers = false};
  // [x_(l), x_(n+1-l)] with 1-based order statistics.
  return {.low = sorted[rank - 1], .high = sorted[sorted.size() - rank], .covers = true};
}

bool median_interval_covers(std::size_t n) { return n > 0 && median_interval_rank(n) > 0; }

double relative_ci_halfwidth(const Summary& s) {
  if (!median_interval_covers(s.samples) || s.median <= 0)
    return std::numeric_limits<double>::infinity();
  return std::max(s.median - s.ci_low, s.ci_high - s.median) / s.median;
}

Summary summarize(std::span<const double> values) {
  if (values.empty()) return {};
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const MedianInterval interval = median_interval_of_sorted(sorted);
  const double mean = mean_of(sorted);
  return {
      .samples = sorted.size(),
      .median = percentile_of_sorted(sorted, 50),
      .min = sorted.front(),
      .p5 = percentile_of_sorted(sorted, 5),
      .p95 = percentile_of_sorted(sorted, 95),
      .p99 = percentile_of_sorted(sorted, 99),
      .max = sorted.back(),
      .mean = mean,
      .stddev = sample_stddev_of(sorted, mean),
      .ci_low = interval.low,
      .ci_high = interval.high,
  };
}

}  // namespace collbench
