#include "harness/compare/history_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "harness/fit/curve_fits.h"
#include "harness/stats/change_points.h"
#include "harness/stats/rounds.h"

namespace collbench {
namespace {

bool usable(double median) { return median > 0 && std::isfinite(median); }

// The launches (indexes into `series`) where a new level starts, of a series with gaps (NaN);
// `to_value` gives a launch's positive value for change_points.
template <typename ToValue>
std::vector<std::size_t> level_starts(std::span<const double> series,
                                      const CompareOptions& options, ToValue to_value) {
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
  std::vector<std::size_t> starts;
  for (const ChangePoint& point : change_points(values, change))
    starts.push_back(launches[point.index]);
  return starts;
}

// The segment of each launch: how many of `starts` lie at or before it.
std::vector<std::size_t> segments_of(std::size_t launches, std::vector<std::size_t> starts) {
  std::ranges::sort(starts);
  std::vector<std::size_t> segment(launches);
  for (std::size_t k = 0; k < launches; ++k)
    segment[k] = static_cast<std::size_t>(std::ranges::upper_bound(starts, k) - starts.begin());
  return segment;
}

// The variance of the finite values about their segments' means, and its degrees of freedom
// (values less segments).
std::pair<double, double> pooled_within(std::span<const double> values,
                                        std::span<const std::size_t> segment) {
  std::map<std::size_t, std::pair<double, std::size_t>> sums;  // segment: sum, count
  for (std::size_t k = 0; k < values.size(); ++k)
    if (std::isfinite(values[k])) {
      auto& [sum, count] = sums[segment[k]];
      sum += values[k];
      ++count;
    }
  double squares = 0;
  std::size_t count = 0;
  for (std::size_t k = 0; k < values.size(); ++k)
    if (std::isfinite(values[k])) {
      const auto& [sum, n] = sums[segment[k]];
      squares += std::pow(values[k] - sum / static_cast<double>(n), 2);
      ++count;
    }
  const double df = static_cast<double>(count) - static_cast<double>(sums.size());
  return {df > 0 ? squares / df : 0, std::max(df, 0.0)};
}

// One curve's points: the level from the history's launches in tonight's state, the spreads
// from every launch, pooled within its state and, in tonight's, within its levels.
void judge_curve(std::span<const LaunchHistory> points, std::span<const std::size_t> members,
                 const HostStateMatch& state, const CompareOptions& options,
                 std::vector<LaunchEvidence>& evidence) {
  std::vector<std::vector<double>> logs, tonights;  // every launch's, those of tonight's state
  const std::size_t launches = points[members.front()].medians_s.size();
  for (std::size_t i : members) {
    std::vector<double> all, in_state;
    for (std::size_t k = 0; k < launches; ++k) {
      const double median = points[i].medians_s[k];
      all.push_back(usable(median) ? std::log(median) : kNoValue);
      in_state.push_back(state.in_state(k) ? all.back() : kNoValue);
    }
    logs.push_back(std::move(all));
    tonights.push_back(std::move(in_state));
  }
  const std::vector<double> shifts = launch_shifts(logs);
  const auto exp_of = [](double log) { return std::exp(log); };
  const std::vector<std::size_t> curve_starts =
      level_starts(launch_shifts(tonights), options, exp_of);
  // A launch's segment: its level's in tonight's state, after them one per other state.
  const auto segments = [&](const std::vector<std::size_t>& starts) {
    std::vector<std::size_t> segment = segments_of(launches, starts);
    for (std::size_t k = 0; k < launches; ++k)
      if (!state.in_state(k)) segment[k] = starts.size() + state.state(k);
    return segment;
  };
  const auto [shared_variance, shared_df] = pooled_within(shifts, segments(curve_starts));
  for (std::size_t m = 0; m < members.size(); ++m) {
    const LaunchHistory& point = points[members[m]];
    LaunchEvidence& e = evidence[members[m]];
    const bool against_base = !std::isnan(point.base_s);
    if (point.judged_s.empty() || !std::ranges::all_of(point.judged_s, usable) ||
        (against_base && !usable(point.base_s))) {
      e.unjudged = "a median tonight or BASE's is zero or missing";
      continue;
    }
    // Against BASE the history lends its spread only, and every launch shows it: a step of the
    // curve's level is in its shifts, not in the points' own spreads.
    std::vector<std::size_t> starts = curve_starts;
    if (!against_base) {
      const auto own_starts = level_starts(tonights[m], options, exp_of);
      starts.insert(starts.end(), own_starts.begin(), own_starts.end());
    }
    const std::vector<std::size_t> segment = segments(starts);
    const std::size_t latest = starts.size();  // the segment of tonight's state's last level
    std::vector<double> own(launches, kNoValue), level;
    std::size_t in_state = 0;
    for (std::size_t k = 0; k < launches; ++k) {
      if (!std::isfinite(logs[m][k])) continue;
      own[k] = logs[m][k] - shifts[k];
      e.launches++;
      if (!state.in_state(k)) continue;
      ++in_state;
      if (segment[k] == latest) level.push_back(logs[m][k]);
    }
    if (in_state < 2) {
      e.unjudged = fmt::format("{} launch{} of the history in tonight's host state: the spread "
                               "between launches is unknown",
                               in_state, in_state == 1 ? "" : "es");
      continue;
    }
    if (level.empty()) {
      e.unjudged = "no launch of the history's latest level holds the point";
      continue;
    }
    std::tie(e.own_variance, e.own_df) = pooled_within(own, segment);
    e.shared = {shared_variance, shared_df};
    const double j = static_cast<double>(point.judged_s.size());
    const double n = static_cast<double>(level.size());
    e.log_change = log_spread(point.judged_s).mean -
                   (against_base ? std::log(point.base_s) : spread_of_logs(level).mean);
    e.se_per_sd = against_base ? std::sqrt(2.0) : std::sqrt(1 / j + 1 / n);
  }
}

}  // namespace

std::vector<LaunchEvidence> history_evidence(std::span<const LaunchHistory> points,
                                             const CompareOptions& options,
                                             const HostStateMatch& state) {
  std::vector<LaunchEvidence> evidence;
  std::map<PointKey, std::vector<std::size_t>> curves;
  for (std::size_t i = 0; i < points.size(); ++i) {
    evidence.emplace_back().key = points[i].key;
    curves[curve_key(points[i].key)].push_back(i);
  }
  for (const auto& [curve, members] : curves)
    judge_curve(points, members, state, options, evidence);
  return evidence;
}

std::vector<LaunchVerdict> judge_against_history(std::span<const LaunchHistory> points,
                                                 const CompareOptions& options,
                                                 const HostStateMatch& state) {
  const std::string host_changed = state.host_changed();
  if (host_changed.empty())
    return judge_launches(history_evidence(points, options, state), options);
  // Every launch as one state, and a threshold no host state reaches: a regression of many
  // times is found whatever the host did, and what a state could explain is UNSURE.
  CompareOptions beyond_states = options;
  beyond_states.threshold = std::max(options.threshold, kHostStateReach - 1);
  std::vector<LaunchVerdict> verdicts =
      judge_launches(history_evidence(points, beyond_states), beyond_states);
  for (LaunchVerdict& v : verdicts) {
    if (v.verdict == Change::slower || v.verdict == Change::faster) continue;
    v.verdict = Change::unsure;
    v.reason = fmt::format("{}; against every launch of the history, a change only beyond {:g}x "
                           "is one",
                           host_changed, kHostStateReach);
  }
  return verdicts;
}

LaunchComparison compare_to_history(std::span<const PointResult> base,
                                    std::span<const PointResult> now, const PointMatch& match,
                                    const CompareOptions& options,
                                    std::span<const std::vector<PointResult>> history,
                                    bool base_in_history, const HostStateMatch& state) {
  // Each history file's points by key (the first of a key, as match_points pairs them).
  std::vector<std::unordered_map<std::string, const PointResult*>> history_by_key(history.size());
  for (std::size_t f = 0; f < history.size(); ++f)
    for (const PointResult& point : history[f])
      history_by_key[f].emplace(match_key(point.key, match.ignore_backend), &point);
  std::vector<LaunchHistory> histories;
  std::vector<PointComparison> results;
  for (const auto& [b, n] : match.matched) {
    LaunchHistory history{base[b].key, {}, {now[n].summary.median}, kNoValue};
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
    r.new_median_s = now[n].summary.median;
    r.baselines = std::ranges::count_if(history.medians_s, usable);
    results.push_back({base[b].key, r});
    histories.push_back(std::move(history));
  }
  const std::vector<LaunchVerdict> verdicts = judge_against_history(histories, options, state);
  for (std::size_t i = 0; i < results.size(); ++i) {
    RatioResult& r = results[i].result;
    // The level NEW is judged against: BASE, or the history's latest level.
    r.base_median_s =
        verdicts[i].observed_ratio > 0 ? r.new_median_s / verdicts[i].observed_ratio : kNoValue;
  }
  return launch_comparison(std::move(results), verdicts);
}

}  // namespace collbench
