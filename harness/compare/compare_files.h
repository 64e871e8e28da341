#pragma once
// Result files compared: NEW's points matched with the newest baseline's and judged
// (compare_points.h) against the noise between runs (earlier baselines, or the files' rounds),
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
  FitComparisons fits;
  std::vector<PointKey> base_only, new_only;  // points
  ChangeCounts point_counts, fit_counts;
  bool any_slower() const { return point_counts.slower + fit_counts.slower > 0; }
  // One word for the whole comparison: SLOWER when a point or fit is slower, else FASTER when
  // one is faster, else SAME when at least half the points are, else NOISY or UNSURE,
  // whichever is more common.
  Change overall() const;
};

// `base_files`: one or more baselines, oldest first. Throws InvalidResultFile when a file
// cannot be read.
Comparison compare_files(const std::vector<std::string>& base_files, const std::string& new_file,
                         const CompareOptions& options);

}  // namespace collbench
