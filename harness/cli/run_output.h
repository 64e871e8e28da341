#pragma once
// Rank 0's share of a run: the result file, the table, the progress line and the fits at the
// end. Every write happens inside a FileWriteSection, so a signal never cuts one in half.
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/run_options.h"
#include "harness/plan/point.h"
#include "harness/plan/run_stragglers.h"
#include "harness/plan/sweep_plan.h"
#include "harness/report/progress.h"
#include "harness/report/reporter.h"
#include "harness/stats/stop_reason.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"

namespace collbench {

class RunOutput {
 public:
  RunOutput(const RunConfig& config, std::unique_ptr<ResultWriter> writer, std::size_t total_points);

  void begin(const Provenance& provenance, const JobTopology& topology, const RunDescription& run);
  void add_row(const std::vector<PointResult>& points, const PlannedRow& row);
  // The host-state probe's readings so far, replacing those written before.
  void record_host_probe(const HostProbe& probe);
  // Fits the curves, names the stragglers, closes the file and prints the footer, the notes and
  // the file's name.
  void finish(const std::vector<std::string>& notes, double seconds);

  bool wrong() const { return wrong_; }

 private:
  const RunConfig& config_;
  std::unique_ptr<ResultWriter> writer_;
  std::unique_ptr<Reporter> reporter_;
  Progress progress_;
  std::size_t total_points_;
  std::size_t done_ = 0;
  bool wrong_ = false;
  std::size_t implausible_ = 0;  // points
  std::array<std::size_t, kStopReasons> stops_{};  // points per stop reason
  std::vector<double> held_back_spreads_;  // round_spread of each point held back by its rounds
  std::vector<PointResult> measured_;  // kept for the fits at the end
  // Every point's key, summary and overlap, without samples: what the footers compare.
  std::vector<PointResult> summaries_;
  std::optional<RunStragglers> stragglers_;  // once the topology is known
  std::string binding_warning_;              // how the ranks did not sit one a core, if so
};

}  // namespace collbench
