#include "harness/stats/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/stats/sampling_distributions.h"

namespace collbench {
namespace {

// A level that differs from the rest of a stretch: [begin, end) against the runs around it.
// A single split is a level that runs to either end of the stretch.
struct Level {
  std::size_t begin = 0, end = 0;
  double p_value = 1;
  double log_change = 0;  // the level's mean of the logs minus the rest's
};

double mean(std::span<const double> values) {
  double sum = 0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

double squares_about(std::span<const double> values, double centre) {
  double sum = 0;
  for (double value : values) sum += (value - centre) * (value - centre);
  return sum;
}

// Student's t of [begin, end) against the rest of `logs` (pooled variance).
double t_statistic(std::span<const double> logs, std::size_t begin, std::size_t end,
                   double& log_change) {
  const std::span<const double> inside = logs.subspan(begin, end - begin);
  std::vector<double> rest(logs.begin(), logs.begin() + begin);
  rest.insert(rest.end(), logs.begin() + end, logs.end());
  const double mi = mean(inside), mo = mean(rest);
  log_change = mi - mo;
  const double pooled = (squares_about(inside, mi) + squares_about(rest, mo)) /
                        static_cast<double>(logs.size() - 2);
  const double se = std::sqrt(pooled * (1.0 / inside.size() + 1.0 / rest.size()));
  if (se > 0) return std::abs(mi - mo) / se;
  return mi != mo ? std::numeric_limits<double>::infinity() : 0;
}

// The most significant level of `logs`: a split (a level to one end) or, as E-Divisive's second
// index allows, a stretch in the middle (a regression and its fix), each side at least
// `min_segment` runs; Bonferroni over every candidate.
Level most_significant_level(std::span<const double> logs, std::size_t min_segment) {
  const std::size_t n = logs.size();
  std::vector<std::pair<std::size_t, std::size_t>> candidates;
  for (std::size_t k = min_segment; k + min_segment <= n; ++k) candidates.emplace_back(k, n);
  for (std::size_t i = min_segment; i < n; ++i)
    for (std::size_t j = i + min_segment; j + min_segment <= n; ++j) candidates.emplace_back(i, j);
  Level best;
  double best_t = -1;
  for (const auto& [begin, end] : candidates) {
    double change = 0;
    const double t = t_statistic(logs, begin, end, change);
    if (t > best_t) {
      best_t = t;
      best = {begin, end, 1, change};
    }
  }
  const double two_sided =
      std::isinf(best_t) ? 0 : 2 * (1 - student_t_cdf(best_t, static_cast<double>(n - 2)));
  best.p_value = std::min(1.0, two_sided * static_cast<double>(candidates.size()));
  return best;
}

void segment(std::span<const double> logs, std::size_t offset, const ChangePointOptions& options,
             std::vector<ChangePoint>& found) {
  if (logs.size() < 2 * options.min_segment || logs.size() < 3) return;
  const Level level = most_significant_level(logs, options.min_segment);
  if (level.p_value > options.alpha ||
      std::expm1(std::abs(level.log_change)) < options.min_magnitude)
    return;
  found.push_back({offset + level.begin, 0, 0, level.p_value});
  if (level.end < logs.size()) found.push_back({offset + level.end, 0, 0, level.p_value});
  segment(logs.first(level.begin), offset, options, found);
  segment(logs.subspan(level.begin, level.end - level.begin), offset + level.begin, options, found);
  segment(logs.subspan(level.end), offset + level.end, options, found);
}

}  // namespace

std::vector<ChangePoint> change_points(std::span<const double> series,
                                       const ChangePointOptions& options) {
  std::vector<double> logs;
  for (double value : series) logs.push_back(std::log(value));
  std::vector<ChangePoint> found;
  segment(logs, 0, options, found);
  std::ranges::sort(found, {}, &ChangePoint::index);
  // Each level's mean over its whole segment, between the neighbouring change points.
  std::vector<std::size_t> bounds{0};
  for (const auto& change : found) bounds.push_back(change.index);
  bounds.push_back(logs.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::span<const double> all(logs);
    found[i].before = std::exp(mean(all.subspan(bounds[i], bounds[i + 1] - bounds[i])));
    found[i].after = std::exp(mean(all.subspan(bounds[i + 1], bounds[i + 2] - bounds[i + 1])));
  }
  return found;
}

}  // namespace collbench
