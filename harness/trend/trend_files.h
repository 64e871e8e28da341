#pragma once
// `collbench trend`: result files of successive runs (nights), oldest first, read into one
// series of median times per point, with its change points (change_points.h) listed, and a
// verdict judged as `compare` judges a night (history_verdicts.h): the newest level against the
// runs before it, both in the newest run's host state (host_states.h), or over every run, with
// only a change beyond any host state's reach a verdict, where that state holds fewer than two
// runs before it. The newest level is the runs since the point's latest change while it holds at
// most `recent` runs (a change is confirmed by the runs of its level and reported until the new
// level is the normal one), else the newest run alone. A run that holds two or more neighbouring
// sizes of a curve SLOWER, or is SLOWER as a whole, is an alert, the exit status; an old change
// stays listed but is no verdict: a level that has held for a week is what tonight is compared
// with, not news.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/compare/compare_files.h"
#include "harness/compare/launch_verdicts.h"
#include "harness/report/verdict_files.h"
#include "harness/stats/change_points.h"

namespace collbench {

struct TrendPoint {
  PointKey key;
  std::vector<std::size_t> runs;  // the files (indexes into Trend::files) that hold the point
  std::vector<double> medians_s;  // its median time in each of them
  std::vector<ChangePoint> changes;  // over all its runs; ChangePoint::index counts in `runs`
  std::size_t judged_runs = 0;       // the newest level's runs the verdict judged
  LaunchVerdict judged;              // they against the runs before them
  std::size_t runs_at_level() const {  // since the latest change, or all of them
    return medians_s.size() - (changes.empty() ? 0 : changes.back().index);
  }
};

struct Trend {
  std::vector<std::string> files;
  VerdictRun latest_run;  // the newest file's run, what the verdict files are dated by
  ChangePointOptions options;
  std::size_t recent = 3;  // runs a new level is reported for
  HostStateMatch host_state;  // of the runs before the newest, in the newest's state
  std::vector<TrendPoint> points;  // in the order the files first show them
  // Two or more neighbouring sizes of a curve SLOWER (FASTER), as indexes into `points`.
  std::vector<std::vector<std::size_t>> alerts, faster_groups;
  std::optional<LaunchVerdict> night;  // the newest level as a whole (judge_night)
  ChangeCounts counts;
  // With an alert: the interleaved launches of the last run before the newest level and the
  // newest that would confirm it (confirm_command.h); else empty.
  std::string confirm;
  std::size_t alert_count() const { return alerts.size() + night_alerts(night); }
};

// The verdicts of `trend.points` (their keys, runs and medians set) over runs whose host-state
// probes are `probes` (one per run, oldest first): the change points, the newest level judged,
// the alerts and the counts.
void judge_trend(Trend& trend, std::span<const HostProbe> probes);

// Throws InvalidResultFile when a file cannot be read.
Trend trend_of_files(const std::vector<std::string>& files, const ChangePointOptions& options,
                     std::size_t recent);

}  // namespace collbench
