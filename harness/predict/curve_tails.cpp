#include "harness/predict/curve_tails.h"

#include <algorithm>
#include <cmath>

#include "harness/fit/curve_fits.h"
#include "harness/predict/nearest_sizes.h"

namespace collbench {
namespace {

const PointResult* nearest(std::span<const PointResult* const> points, int ranks,
                           double size_bytes) {
  std::vector<const PointResult*> of_ranks;
  for (const PointResult* point : points)
    if (point->key.nranks == ranks) of_ranks.push_back(point);
  return nearest_sizes(std::move(of_ranks), size_bytes, 1,
                       [](const PointResult* point) { return point->key.size_bytes; })
      .front();
}

// Ascending.
std::vector<int> rank_counts(std::span<const PointResult* const> points) {
  std::vector<int> counts;
  for (const PointResult* point : points) counts.push_back(point->key.nranks);
  std::ranges::sort(counts);
  counts.erase(std::ranges::unique(counts).begin(), counts.end());
  return counts;
}

double p99_over_median(const PointResult& point) {
  return point.summary.p99 / point.summary.median;
}

}  // namespace

std::vector<const PointResult*> tail_points(std::span<const PointResult> points,
                                            const PointKey& curve) {
  std::vector<const PointResult*> chosen;
  for (const PointResult& point : points) {
    if (rank_curve_key(point.key) == curve && point.key.mode == Mode::latency &&
        point.key.sync == SampleStart::window &&
        point.samples.nranks == point.key.nranks && tail_predictable(point.samples))
      chosen.push_back(&point);
  }
  return chosen;
}

std::optional<SizeTail> predict_size_tail(std::span<const PointResult* const> points,
                                          double size_bytes, std::span<const double> ranks,
                                          const TailOptions& options) {
  const std::vector<int> counts = rank_counts(points);
  if (counts.empty()) return std::nullopt;
  const PointResult& from = *nearest(points, counts.back(), size_bytes);
  SizeTail tail{.from_ranks = counts.back(),
                .from_bytes = static_cast<double>(from.key.size_bytes),
                .measured = {},
                .asked = predict_tail(from.samples, ranks, options)};
  for (int count : counts) {
    const PointResult& point = *nearest(points, count, size_bytes);
    tail.measured.push_back({count, static_cast<double>(point.key.size_bytes),
                             p99_over_median(point)});
  }
  return tail;
}

std::vector<TailCheck> validate_largest_tail(std::span<const PointResult* const> points,
                                             const TailOptions& options) {
  const std::vector<int> counts = rank_counts(points);
  std::vector<TailCheck> checks;
  if (counts.size() < 2) return checks;
  const int largest = counts.back();
  const int second = counts[counts.size() - 2];
  // The point estimates only: the check compares them with what was measured.
  const TailOptions point_only{.bootstrap_replicates = 0, .seed = options.seed};
  for (const PointResult* measured : points) {
    if (measured->key.nranks != largest) continue;
    const auto size = static_cast<double>(measured->key.size_bytes);
    const double at[] = {static_cast<double>(largest)};
    const TailPrediction predicted =
        predict_tail(nearest(points, second, size)->samples, at, point_only).front();
    checks.push_back({.from_ranks = second,
                      .ranks = largest,
                      .size_bytes = size,
                      .predicted_median_s = predicted.median_s,
                      .predicted_p99_over_median = predicted.p99_over_median,
                      .measured_median_s = measured->summary.median,
                      .measured_p99_over_median = p99_over_median(*measured)});
  }
  return checks;
}

}  // namespace collbench
