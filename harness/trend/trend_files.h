#pragma once
// `collbench trend`: result files of successive runs (nights), oldest first, read into one
// series of median times per point, with its change points (change_points.h) and a verdict:
// SLOWER or FASTER after the latest change, SAME without one, UNSURE where the series is too
// short to tell.
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
};

struct Trend {
  std::vector<std::string> files;
  VerdictRun latest_run;  // the newest file's run, what the verdict files are dated by
  ChangePointOptions options;
  std::vector<TrendPoint> points;  // in the order the files first show them
  ChangeCounts counts;
};

// Throws InvalidResultFile when a file cannot be read.
Trend trend_of_files(const std::vector<std::string>& files, const ChangePointOptions& options);

}  // namespace collbench
