#pragma once
// Result files compared: NEW's points matched with the newest baseline's and judged against the
// noise between runs: the launches of a history when there are earlier baselines
// (history_verdicts.h), else the files' rounds (compare_points.h);
// their fits too when both hold them (compare_fits.h), and notes on what makes the comparison
// weaker.
// Reads the files, so it lives in the harness, beside `collbench compare`.
#include <cstddef>
#include <string>
#include <vector>

#include "harness/compare/compare_fits.h"
#include "harness/compare/compare_points.h"
#include "harness/report/verdict_files.h"

namespace collbench {

// How many verdicts of each kind.
struct ChangeCounts {
  std::size_t same = 0, faster = 0, slower = 0, unsure = 0, noisy = 0;
  void add(Change v) {
    (v == Change::same     ? same
     : v == Change::faster ? faster
     : v == Change::slower ? slower
     : v == Change::noisy  ? noisy
                           : unsure)++;
  }
};

struct Comparison {
  std::string base_file, new_file;  // base_file: the newest baseline
  VerdictRun new_run;  // NEW's run, what the verdict files are dated by
  std::vector<std::string> earlier_files;  // further baselines, oldest first
  CompareOptions options;
  std::vector<std::string> notes;
  std::vector<PointComparison> points;
  // With earlier baselines (a history): the SLOWER alerts, as indexes into `points`
  // (history_verdicts.h); the exit status follows them, not single points or fits.
  std::vector<std::vector<std::size_t>> alerts;
  FitComparisons fits;
  std::vector<PointKey> base_only, new_only;  // points
  ChangeCounts point_counts, fit_counts;
  bool against_history() const { return !earlier_files.empty(); }
  bool any_slower() const {
    return against_history() ? !alerts.empty() : point_counts.slower + fit_counts.slower > 0;
  }
  // One word for the whole comparison: SLOWER when a point or fit is slower (against a history:
  // when an alert holds), else FASTER when one is faster, else SAME when at least half the
  // points are, else NOISY or UNSURE, whichever is more common.
  Change overall() const;
};

// `base_files`: one or more baselines, oldest first. Throws InvalidResultFile when a file
// cannot be read.
Comparison compare_files(const std::vector<std::string>& base_files, const std::string& new_file,
                         const CompareOptions& options);

}  // namespace collbench
