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
#include "harness/stats/no_value.h"
#include "harness/stats/rounds.h"

namespace collbench {
namespace {

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

// The segment of each launch: in tonight's state, its level's (how many of `starts` lie at or
// before it); after those, one per other state. Tonight's state's latest level is starts.size().
std::vector<std::size_t> state_segments(std::size_t launches, std::vector<std::size_t> starts,
                                        const HostStateMatch& state) {
  std::ranges::sort(starts);
  std::vector<std::size_t> segment(launches);
  for (std::size_t k = 0; k < launches; ++k) {
    const auto level = std::ranges::upper_bound(starts, k) - starts.begin();
    segment[k] =
        state.in_state(k) ? static_cast<std::size_t>(level) : starts.size() + state.state(k);
  }
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
      all.push_back(usable_median(median) ? std::log(median) : kNoValue);
      in_state.push_back(state.in_state(k) ? all.back() : kNoValue);
    }
    logs.push_back(std::move(all));
    tonights.push_back(std::move(in_state));
  }
  const std::vector<double> shifts = launch_shifts(logs);
  const auto exp_of = [](double log) { return std::exp(log); };
  const std::vector<std::size_t> curve_starts =
      level_starts(launch_shifts(tonights), options, exp_of);
  const auto [shared_variance, shared_df] =
      pooled_within(shifts, state_segments(launches, curve_starts, state));
  for (std::size_t m = 0; m < members.size(); ++m) {
    const LaunchHistory& point = points[members[m]];
    LaunchEvidence& e = evidence[members[m]];
    const bool against_base = !std::isnan(point.base_s);
    if (point.judged_s.empty() || !std::ranges::all_of(point.judged_s, usable_median) ||
        (against_base && !usable_median(point.base_s))) {
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
    const std::vector<std::size_t> segment = state_segments(launches, starts, state);
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

// The night as a whole (judge_night), within `state`.
LaunchVerdict night_within(std::span<const LaunchHistory> points, const CompareOptions& options,
                           const HostStateMatch& state) {
  LaunchVerdict v;
  v.ratio_ci = {kNoValue, kNoValue};
  const std::size_t launches = points.empty() ? 0 : points.front().medians_s.size();
  // Each launch's level: the mean over the points it holds of their log's deviation from the
  // point's mean over the history (so that a point missing from a launch does not move it);
  // tonight's the same over its launches, from the points judged.
  std::vector<double> sums(launches, 0.0), counts(launches, 0.0);
  double tonight = 0, judged_points = 0;
  std::size_t judged = 0;  // the launches judged, the fewest of any point
  for (const LaunchHistory& point : points) {
    if (!std::isnan(point.base_s)) {
      v.reason = "against one BASE: the night is judged per point";
      return v;
    }
    std::vector<double> logs;
    for (double median : point.medians_s)
      if (usable_median(median)) logs.push_back(std::log(median));
    if (logs.empty() || point.judged_s.empty() ||
        !std::ranges::all_of(point.judged_s, usable_median))
      continue;
    const double mean = spread_of_logs(logs).mean;
    for (std::size_t k = 0; k < launches; ++k)
      if (usable_median(point.medians_s[k])) {
        sums[k] += std::log(point.medians_s[k]) - mean;
        ++counts[k];
      }
    tonight += log_spread(point.judged_s).mean - mean;
    judged = judged_points == 0 ? point.judged_s.size() : std::min(judged, point.judged_s.size());
    ++judged_points;
  }
  if (judged_points == 0) {
    v.reason = "no point is judged";
    return v;
  }
  tonight /= judged_points;
  std::vector<double> levels(launches, kNoValue), in_state(launches, kNoValue);
  for (std::size_t k = 0; k < launches; ++k)
    if (counts[k] > 0) {
      levels[k] = sums[k] / counts[k];
      if (state.in_state(k)) in_state[k] = levels[k];
    }
  const std::vector<std::size_t> starts =
      level_starts(in_state, options, [](double log) { return std::exp(log); });
  const std::vector<std::size_t> segment = state_segments(launches, starts, state);
  std::vector<double> latest;
  for (std::size_t k = 0; k < launches; ++k)
    if (segment[k] == starts.size() && std::isfinite(levels[k])) latest.push_back(levels[k]);
  const auto [variance, df] = pooled_within(levels, segment);
  v.launches = latest.size();
  if (!(df > 0 && variance > 0) || latest.empty()) {
    v.reason = "the history's levels have no spread to judge against";
    return v;
  }
  const double se = std::sqrt(variance * (1 / static_cast<double>(judged) +
                                          1 / static_cast<double>(latest.size())));
  judge_change(v, tonight - spread_of_logs(latest).mean, se, df, options);
  v.observed_ratio = v.ratio;
  v.verdict = verdict_of(v.p_value <= 1 - options.confidence, v.ratio, v.ratio_ci,
                         options.threshold);
  return v;
}

// `judge(options, state)`'s verdicts within tonight's host state. Where it holds fewer than two
// of the history's launches: every launch as one state, and a threshold no host state reaches,
// so that a regression of many times is found whatever the host did, and what a state could
// explain is UNSURE, saying why.
template <typename Judge>
std::vector<LaunchVerdict> within_host_state(const CompareOptions& options,
                                             const HostStateMatch& state, Judge judge) {
  if (!state.changed()) return judge(options, state);
  const std::string host_changed = state.host_changed();
  CompareOptions beyond_states = options;
  beyond_states.threshold = std::max(options.threshold, kHostStateReach - 1);
  std::vector<LaunchVerdict> verdicts = judge(beyond_states, HostStateMatch{});
  for (LaunchVerdict& v : verdicts) {
    if (v.verdict == Change::slower || v.verdict == Change::faster) continue;
    v.verdict = Change::unsure;
    v.reason = fmt::format("{}; against every launch of the history, a change only beyond {:g}x "
                           "is one",
                           host_changed, kHostStateReach);
  }
  return verdicts;
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
  return within_host_state(options, state, [&](const CompareOptions& o, const HostStateMatch& s) {
    return judge_launches(history_evidence(points, o, s), o);
  });
}

LaunchVerdict judge_night(std::span<const LaunchHistory> points, const CompareOptions& options,
                          const HostStateMatch& state) {
  return within_host_state(options, state, [&](const CompareOptions& o, const HostStateMatch& s) {
           return std::vector<LaunchVerdict>{night_within(points, o, s)};
         })
      .front();
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
    r.baselines = std::ranges::count_if(history.medians_s, usable_median);
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
  LaunchComparison comparison = launch_comparison(std::move(results), verdicts);
  if (base_in_history) comparison.night = judge_night(histories, options, state);
  return comparison;
}

}  // namespace collbench
