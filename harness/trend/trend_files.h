#pragma once
// `collbench trend`: result files of successive runs (nights), oldest first, read into one
// series of median times per point, with its change points (change_points.h) and a verdict:
// SLOWER or FASTER while the latest change is recent (its level holds at most `recent` runs: a
// change is confirmed by the runs of its level, at least min_segment, and then reported until
// the new level is the normal one), SAME without a recent one, UNSURE where the series is too
// short to tell. An old change stays listed but is no verdict: a level that has held for a week
// is what tonight is compared with, not news.
#include <cstddef>
#include <string>
#include <vector>

#include "harness/compare/compare_files.h"
#include "harness/report/verdict_files.h"
#include "harness/stats/change_points.h"

namespace collbench {

struct TrendPoint {
  PointKey key;
  std::vector<std::size_t> runs;  // the files (indexes into Trend::files) that hold the point
  std::vector<double> medians_s;  // its median time in each of them
  std::vector<ChangePoint> changes;  // ChangePoint::index counts in `runs`
  Change verdict = Change::unsure;
  std::size_t runs_at_level() const {  // since the latest change, or all of them
    return medians_s.size() - (changes.empty() ? 0 : changes.back().index);
  }
};

struct Trend {
  std::vector<std::string> files;
  VerdictRun latest_run;  // the newest file's run, what the verdict files are dated by
  ChangePointOptions options;
  std::size_t recent = 3;  // runs a new level is reported for
  std::vector<TrendPoint> points;  // in the order the files first show them
  ChangeCounts counts;
};

// Throws InvalidResultFile when a file cannot be read.
Trend trend_of_files(const std::vector<std::string>& files, const ChangePointOptions& options,
                     std::size_t recent);

}  // namespace collbench
