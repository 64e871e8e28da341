#include "harness/trend/trend_files.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "harness/compare/confirm_command.h"
#include "harness/compare/history_verdicts.h"
#include "harness/stats/no_value.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

// The point's newest level as the verdict judges it, the history before it, over the runs in
// the newest run's state, or every run where that state holds too few to judge by (the verdict
// then takes them as one state: history_verdicts.h): the runs since its latest change there while
// they are at most `recent`, else the newest alone. `newest`: the index of the newest file.
LaunchHistory newest_level(const TrendPoint& point, const Trend& trend, std::size_t newest) {
  LaunchHistory level{point.key, std::vector<double>(newest, kNoValue), {}, kNoValue};
  std::vector<double> series;
  std::vector<std::size_t> runs;
  for (std::size_t i = 0; i < point.runs.size(); ++i) {
    const std::size_t run = point.runs[i];
    if (trend.host_state.changed() || trend.host_state.in_state(run)) {
      series.push_back(point.medians_s[i]);
      runs.push_back(run);
    }
  }
  if (runs.empty() || runs.back() != newest) return level;  // not in the newest run: unjudged
  std::size_t first = runs.size() - 1;
  if (series.size() >= 2 * trend.options.min_segment)
    if (const auto changes = change_points(series, trend.options);
        !changes.empty() && series.size() - changes.back().index <= trend.recent)
      first = changes.back().index;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i >= first)
      level.judged_s.push_back(series[i]);
    else
      level.medians_s[runs[i]] = series[i];
  }
  return level;
}

}  // namespace

void judge_trend(Trend& trend, std::span<const HostProbe> probes) {
  const std::size_t newest = probes.size() - 1;
  trend.host_state = match_host_state(probes.first(newest), probes.back());
  std::vector<LaunchHistory> levels;
  for (TrendPoint& point : trend.points) {
    if (point.medians_s.size() >= 2 * trend.options.min_segment)
      point.changes = change_points(point.medians_s, trend.options);
    levels.push_back(newest_level(point, trend, newest));
  }
  CompareOptions judging;
  judging.threshold = trend.options.min_magnitude;
  judging.confidence = 1 - trend.options.alpha;
  const std::vector<LaunchVerdict> verdicts =
      judge_against_history(levels, judging, trend.host_state);
  std::vector<PointKey> keys;
  for (std::size_t i = 0; i < trend.points.size(); ++i) {
    TrendPoint& point = trend.points[i];
    point.judged = verdicts[i];
    point.judged_runs = levels[i].judged_s.size();
    if (point.judged_runs == 0) point.judged.reason = "not in the newest run";
    trend.counts.add(point.judged.verdict);
    keys.push_back(point.key);
  }
  trend.alerts = grouped_sizes(keys, verdicts, Change::slower);
  trend.faster_groups = grouped_sizes(keys, verdicts, Change::faster);
  trend.night = judge_night(levels, judging, trend.host_state);
}

Trend trend_of_files(const std::vector<std::string>& files, const ChangePointOptions& options,
                     std::size_t recent) {
  Trend trend;
  trend.files = files;
  trend.options = options;
  trend.recent = recent;
  std::unordered_map<std::string, std::size_t> index_of;
  std::vector<HostProbe> probes;
  std::vector<Provenance> provenances;
  for (std::size_t run = 0; run < files.size(); ++run) {
    ResultFile file = read_result_file(files[run], false);
    provenances.push_back(file.provenance);
    if (run + 1 == files.size())
      trend.latest_run =
          verdict_run(file.provenance.text_of("start_utc"), file.provenance.text_of("end_utc"));
    probes.push_back(std::move(file.host_probe));
    for (const PointResult& point : file.points) {
      if (!(point.summary.median > 0)) continue;
      const auto [found, added] =
          index_of.emplace(match_key(point.key, false), trend.points.size());
      if (added) trend.points.emplace_back().key = point.key;
      TrendPoint& series = trend.points[found->second];
      if (!series.runs.empty() && series.runs.back() == run) continue;  // a key twice: the first
      series.runs.push_back(run);
      series.medians_s.push_back(point.summary.median);
    }
  }
  judge_trend(trend, probes);
  std::size_t level_runs = 0;  // the most runs an alert's newest level holds
  for (const auto& alert : trend.alerts)
    for (std::size_t i : alert) level_runs = std::max(level_runs, trend.points[i].judged_runs);
  if (night_alerts(trend.night) > 0)
    for (const TrendPoint& point : trend.points)
      level_runs = std::max(level_runs, point.judged_runs);
  if (level_runs > 0 && level_runs < files.size())
    trend.confirm = confirm_command(provenances[files.size() - 1 - level_runs], provenances.back());
  return trend;
}

}  // namespace collbench
