#include "harness/compare/history_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "harness/fit/curve_fits.h"
#include "harness/stats/change_points.h"
#include "harness/stats/rounds.h"

namespace collbench {
namespace {

bool usable(double median) { return median > 0 && std::isfinite(median); }

// The first launch after the last change of a series with gaps (NaN); `to_value` gives a launch's
// positive value for change_points.
template <typename ToValue>
std::size_t since_last_change(std::span<const double> series, const CompareOptions& options,
                              ToValue to_value) {
  std::vector<double> values;
  std::vector<std::size_t> launches;
  for (std::size_t k = 0; k < series.size(); ++k)
    if (std::isfinite(series[k])) {
      values.push_back(to_value(series[k]));
      launches.push_back(k);
    }
  ChangePointOptions change;
  change.alpha = 1 - options.confidence;
  change.min_magnitude = options.threshold;
  const auto changes = change_points(values, change);
  return changes.empty() ? 0 : launches[changes.back().index];
}

// One curve's points: each judged over its launches since its own last change and its curve's,
// the curve's shift per launch taken out of its own spread.
void judge_curve(std::span<const LaunchHistory> points, std::span<const std::size_t> members,
                 const CompareOptions& options, std::vector<LaunchEvidence>& evidence) {
  std::vector<std::vector<double>> logs;
  for (std::size_t i : members) {
    std::vector<double> point;
    for (double median : points[i].medians_s)
      point.push_back(usable(median) ? std::log(median) : kNoValue);
    logs.push_back(std::move(point));
  }
  const std::vector<double> shifts = launch_shifts(logs);
  const std::size_t curve_start =
      since_last_change(shifts, options, [](double shift) { return std::exp(shift); });
  for (std::size_t m = 0; m < members.size(); ++m) {
    const LaunchHistory& point = points[members[m]];
    LaunchEvidence& e = evidence[members[m]];
    const bool against_base = !std::isnan(point.base_s);
    if (!usable(point.tonight_s) || (against_base && !usable(point.base_s))) {
      e.unjudged = "a median tonight or BASE's is zero or missing";
      continue;
    }
    // Against BASE the history lends its spread only, and every launch shows it: a step of the
    // curve's level is in its shifts, not in the points' own spreads.
    const std::size_t start =
        against_base ? 0
                     : std::max(curve_start, since_last_change(logs[m], options, [](double log) {
                                  return std::exp(log);
                                }));
    std::vector<double> window, own, window_shifts;
    for (std::size_t k = start; k < logs[m].size(); ++k)
      if (std::isfinite(logs[m][k])) {
        window.push_back(logs[m][k]);
        own.push_back(logs[m][k] - shifts[k]);
        window_shifts.push_back(shifts[k]);
      }
    e.launches = spread_of_logs(own);
    e.launches.count = window.size();
    if (window.empty()) {
      e.unjudged = "a median in the history is zero or missing";
      continue;
    }
    if (window.size() < 2) {
      e.unjudged =
          "1 launch since the history's last change: the spread between launches is "
          "unknown";
      continue;
    }
    // A host that flips between states can look like a change of level, which would leave the
    // window one state only: the whole history's flips count too.
    const SharedEffect window_effect = shared_effect(window_shifts);
    const SharedEffect flips = successive_effect(shifts);
    e.shared = flips.variance > window_effect.variance ? flips : window_effect;
    const double n = static_cast<double>(window.size());
    e.log_change = std::log(point.tonight_s) -
                   (against_base ? std::log(point.base_s) : spread_of_logs(window).mean);
    e.se_per_sd = against_base ? std::sqrt(2.0) : std::sqrt(1 + 1 / n);
  }
}

}  // namespace

std::vector<LaunchVerdict> judge_against_history(std::span<const LaunchHistory> points,
                                                 const CompareOptions& options) {
  std::vector<LaunchEvidence> evidence;
  std::map<PointKey, std::vector<std::size_t>> curves;
  for (std::size_t i = 0; i < points.size(); ++i) {
    evidence.push_back({points[i].key, kNoValue, {}, {}, 0, {}});
    curves[curve_key(points[i].key)].push_back(i);
  }
  for (const auto& [curve, members] : curves) judge_curve(points, members, options, evidence);
  return judge_launches(evidence, options);
}

LaunchComparison compare_to_history(std::span<const PointResult> base,
                                    std::span<const PointResult> now, const PointMatch& match,
                                    const CompareOptions& options,
                                    std::span<const std::vector<PointResult>> history,
                                    bool base_in_history) {
  // Each history file's points by key (the first of a key, as match_points pairs them).
  std::vector<std::unordered_map<std::string, const PointResult*>> history_by_key(history.size());
  for (std::size_t f = 0; f < history.size(); ++f)
    for (const PointResult& point : history[f])
      history_by_key[f].emplace(match_key(point.key, match.ignore_backend), &point);
  std::vector<LaunchHistory> histories;
  std::vector<PointComparison> results;
  for (const auto& [b, n] : match.matched) {
    LaunchHistory history{base[b].key, {}, now[n].summary.median, kNoValue};
    const std::string key = match_key(base[b].key, match.ignore_backend);
    for (const auto& points : history_by_key) {
      const auto found = points.find(key);
      history.medians_s.push_back(found == points.end() ? kNoValue : found->second->summary.median);
    }
    if (base_in_history)
      history.medians_s.push_back(base[b].summary.median);
    else
      history.base_s = base[b].summary.median;
    RatioResult r;
    r.base_samples = base[b].summary.samples;
    r.new_samples = now[n].summary.samples;
    r.new_median_s = history.tonight_s;
    r.baselines = std::ranges::count_if(history.medians_s, usable);
    results.push_back({base[b].key, r});
    histories.push_back(std::move(history));
  }
  const std::vector<LaunchVerdict> verdicts = judge_against_history(histories, options);
  for (std::size_t i = 0; i < results.size(); ++i) {
    RatioResult& r = results[i].result;
    // The level NEW is judged against: BASE, or the history's window.
    r.base_median_s = verdicts[i].ratio > 0 ? r.new_median_s / verdicts[i].ratio : kNoValue;
  }
  return launch_comparison(std::move(results), verdicts);
}

}  // namespace collbench
