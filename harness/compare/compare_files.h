#pragma once
// Result files compared: NEW's points matched with BASE's and judged against the spread between
// launches (launch_verdicts.h), as the files given allow:
//   one launch    BASE NEW: one launch per side, the spread between launches unknown: every
//                 verdict UNSURE, the ratio shown with the noise within the launches
//                 (compare_points.h);
//   history       BASE... NEW, several baselines: NEW against their level (history_verdicts.h);
//   pair          --history DIR BASE NEW: NEW against BASE, the history lending its spread;
//   interleaved   --interleaved A B: alternating launches, their pairs' differences
//                 (interleaved_verdicts.h).
// Fits too when both hold them (compare_fits.h), judged within the runs only, and notes on what
// makes the comparison weaker. Reads the files, so it lives in the harness, beside
// `collbench compare`.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/compare/compare_fits.h"
#include "harness/compare/compare_points.h"
#include "harness/compare/host_states.h"
#include "harness/compare/launch_verdicts.h"
#include "harness/report/verdict_files.h"

namespace collbench {

enum class Replication { one_launch, history, pair, interleaved };
std::string_view name(Replication replication);  // "one launch", "history", ...

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

// 1 when the night as a whole is SLOWER (an alert), else 0.
std::size_t night_alerts(const std::optional<LaunchVerdict>& night);

struct Comparison {
  Replication replication = Replication::one_launch;
  std::string base_file, new_file;  // the newest baseline and NEW; interleaved: A and B as given
  VerdictRun new_run;  // NEW's run, what the verdict files are dated by
  std::vector<std::string> earlier_files;  // history: the further baselines, oldest first
  std::vector<std::string> history_files;  // pair: the launches lending their spread
  std::vector<std::string> a_files, b_files;  // interleaved: the launches, pair by pair
  CompareOptions options;
  HostStateMatch host_state;  // history and pair: the launches in NEW's host state
  std::vector<std::string> notes;
  std::vector<PointComparison> points;
  // The groups of two or more sizes next to each other on one curve, SLOWER (the alerts, which
  // set the exit status) or FASTER, as indexes into `points` (launch_verdicts.h).
  std::vector<std::vector<std::size_t>> alerts, faster_groups;
  std::optional<LaunchVerdict> night;  // history: the night as a whole, SLOWER an alert too
  // With an alert against a history or a BASE: the interleaved launches that would confirm it
  // (confirm_command.h); else empty.
  std::string confirm;
  FitComparisons fits;
  std::vector<PointKey> base_only, new_only;  // points
  ChangeCounts point_counts, fit_counts;
  std::size_t alert_count() const { return alerts.size() + night_alerts(night); }
  bool any_slower() const { return alert_count() > 0; }
  Change overall() const;  // overall_change of its points and groups
};

// One word for a whole comparison: SLOWER when an alert holds, else FASTER when a group of FASTER
// sizes does, else SAME when at least half the points are, else NOISY or UNSURE, whichever is
// more common.
Change overall_change(const ChangeCounts& points, bool slower_alert, bool faster_group);

// `base_files`: one or more baselines, oldest first; `history_files`, with one baseline only:
// the launches whose spread judges it. Throws InvalidResultFile when a file cannot be read.
Comparison compare_files(const std::vector<std::string>& base_files, const std::string& new_file,
                         const std::vector<std::string>& history_files,
                         const CompareOptions& options);

// A's and B's launches, as many of each and at least two, in launch order; `a_name`, `b_name`
// name them in the report.
Comparison compare_interleaved_files(const std::string& a_name,
                                     const std::vector<std::string>& a_files,
                                     const std::string& b_name,
                                     const std::vector<std::string>& b_files,
                                     const CompareOptions& options);

}  // namespace collbench
