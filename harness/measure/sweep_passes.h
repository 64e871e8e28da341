#pragma once
// A run is a sequence of passes: the sweep's rows on one placement layout with one library
// tuning. Placements come first, then tunings within each, so a report reads group by group.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/communicator.h"
#include "harness/measure/row_runner.h"
#include "harness/measure/run_config.h"
#include "harness/plan/point.h"
#include "harness/plan/sweep_plan.h"
#include "topo/placement.h"

namespace collbench {

struct SweepPass {
  GroupLayout layout;
  Tuning tuning;
  SweepPlan plan;                // sized for the layout's groups
  std::vector<PlannedRow> rows;  // the plan's rows the backend runs with this tuning
};

// The rows' sweep: what plan_sweep needs of the run.
SweepRequest sweep_request(const RunConfig& config);

// Every pass the run asks for; a note for each placement, tuning or collective left out.
std::vector<SweepPass> plan_passes(const RunConfig& config, const Backend& backend,
                                   const std::vector<RankPlace>& places,
                                   std::vector<std::string>& notes);

// Called on every rank after each row, with the row's points (complete on rank 0 only).
using RowDone = std::function<void(const std::vector<PointResult>&, const PlannedRow&)>;
// Called on every rank after each curve of a pass, with how many rows it held.
using CurveDone = std::function<void(std::size_t rows)>;
// Seconds left of --time-limit, by rank 0's clock, or nullopt without a limit.
using TimeLeft = std::function<std::optional<double>()>;

// Runs the passes in order, in `buffers` (which fit buffers_for of every pass's plan).
// Collective over the world; notes say what was skipped or cut short. `site`: this rank's place
// on its node, for --overlap-load; `timer_step_s` the job's (job_timer_step); `bound` what rank
// 0 judges each finished point's plausibility against.
void run_passes(Backend& backend, const std::vector<SweepPass>& passes, const RunConfig& config,
                const LoadSite& site, double timer_step_s, const PlausibilityBound& bound,
                RunBuffers& buffers,
                const TimeLeft& time_left, const RowDone& row_done, const CurveDone& curve_done,
                std::vector<std::string>& notes);

}  // namespace collbench
