#pragma once
// Measures one row of the sweep (one collective, datatype, op and size) in every mode and
// in-place variant: validation on untimed operations, warm-ups, then sampling until rank 0
// decides to stop. Latency samples start in windows of synchronised clocks (or at a barrier,
// --sync barrier); bandwidth loops start at a barrier. Every rank calls it; results are
// complete on rank 0 only.
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "backends/communicator.h"
#include "harness/measure/clock_sync.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/loop_sizing.h"
#include "harness/measure/start_window.h"
#include "harness/plan/point.h"
#include "harness/plan/sample_retention.h"
#include "harness/plan/sweep_plan.h"
#include "harness/stats/stopping_rule.h"

namespace collbench {

struct MeasureSettings {
  std::string backend;
  Placement placement = Placement::world;
  Tuning tuning;
  std::vector<Mode> modes;
  std::vector<bool> in_place;
  int warmup = 5;  // untimed operations before the first round (Sampling::warmup)
  int check_iters = 1;
  StoppingRule stopping;
  SampleStart latency_start = SampleStart::window;
  LoopSizing loop;
  int launches_per_bandwidth_sample = 1;  // of its batch: -G N's N (RunConfig)
  std::optional<std::size_t> rows_per_round;  // sample rows sent to rank 0 (none: all)
  std::optional<LoadKind> overlap_load;  // --overlap-load: measured beside latency points
  LoadSite load_site;                    // this rank's, for a host load's core
  double timer_step_s = 0;  // the run's timer step, the coarsest of its ranks' (timer_step.h)
};

// The communicators of one placement: every group runs its operations at once, on its own
// communicator, while `all` (every rank of the job) carries the barriers, the sample times and
// the stop decisions, so the groups start together and the point is the slowest group's.
struct GroupRun {
  Communicator* all = nullptr;
  Communicator* group = nullptr;  // this rank's group; null when it sits the placement out
  int group_size = 0;
  std::vector<int> members;       // the ranks of `all` that run, ascending: the sample columns
};

// The run's two buffers, allocated once for its largest row (buffers_for over every pass).
struct RunBuffers {
  std::unique_ptr<Buffer> send;
  std::unique_ptr<Buffer> recv;
};

class RowRunner {
 public:
  // Registers `buffers`, which every row of the pass fits in, with the group (-R), and makes
  // its first, untimed call with `first_collective` in them.
  RowRunner(const GroupRun& run, const MeasureSettings& settings, RunBuffers& buffers,
            CollectiveKind first_collective);
  // Deregisters the buffers, under the watchdog (a deregistration may wait on the device).
  ~RowRunner();
  RowRunner(const RowRunner&) = delete;
  RowRunner& operator=(const RowRunner&) = delete;

  // One round of the row. `time_left_s` is what the sweep's --time-limit leaves, if set;
  // `earlier_rounds` the row's points as its earlier rounds left them (empty in the first
  // round, which also validates before timing and runs every -w warm-up; later rounds run one);
  // the `last_round` validates again after its timed samples. Returns the points measured,
  // their samples on rank 0 (the statistics are point_rounds.h's once every round is in); fewer
  // than points_per_row when the time limit ended the row.
  std::vector<PointResult> measure(const PlannedRow& row, std::optional<double> time_left_s,
                                   std::span<const PointResult> earlier_rounds, bool last_round);

  // How this rank's --overlap-load runs (OverlapLoad::placement); empty without one.
  std::string_view load_placement() const { return load_ ? load_->placement() : ""; }

 private:
  struct Sampled;
  struct Order;
  // What a point's stopping rule starts from besides the rule: --time-limit's share left, the
  // point's earlier rounds (round_estimates_of).
  struct StoppingInputs {
    std::optional<double> time_left_s;
    std::vector<RoundMedian> earlier_rounds;
  };
  // Rank 0's inputs, on every rank: so that every rank's rule decides as rank 0's.
  StoppingInputs rank0_stopping_inputs(StoppingInputs mine);
  double run_timed(Batch& batch, int launches = 1);
  std::unique_ptr<Batch> prepare(const CollectiveCall& call, int count);  // null off the groups
  // This rank's pattern for `call`, seeded by the point and the check's repetition.
  PatternRule pattern_rule(const CollectiveCall& call, int repetition) const;
  void fill_input(const CollectiveCall& call, const PatternRule& rule);
  // -c checks, repetitions first_repetition on: wrong elements over ranks, or kNotChecked.
  std::int64_t validate(const CollectiveCall& call, int first_repetition);
  // `earlier`: the point as its earlier rounds left it; null in its first round.
  Sampled sample(const CollectiveCall& call, Mode mode, std::optional<double> time_left_s,
                 const PointResult* earlier);
  Sampled sample_from_barrier(const CollectiveCall& call, Mode mode, StoppingState& stopping);
  // The first `warmup_windows` windows are run and dropped, as warm-ups of the window's path.
  Sampled sample_in_windows(const CollectiveCall& call, StoppingState& stopping,
                            int warmup_windows);
  // The load and the collective alone and together (overlap_sampling.cpp); `alone_s` is the
  // point's median, known on rank 0, that the load is sized to.
  OverlapMeasure sample_overlap(const CollectiveCall& call, double alone_s);
  int size_loop(Batch* once);
  // Synchronises the clocks; the first time, also sizes the windows' margin.
  void synchronise_clocks();
  double initial_margin();
  Order broadcast_order(Order order);
  // Every rank gets the first running rank's account of what the library chose for `call`.
  LibraryChoice library_choice(const CollectiveCall& call);
  // Every rank gets the element-wise maxima over ranks: what a sample needs, in O(log p).
  template <std::size_t N>
  std::array<double, N> maxima_over_ranks(std::array<double, N> mine, const char* stage) {
    CommunicationWait wait(stage);
    all_.max_over_ranks(mine);
    return mine;
  }
  // Once a round of a point is done, rank 0 gets each member's value in the samples the record
  // keeps (settings_.rows_per_round, evenly spaced) as [sample x member] rows; the others
  // nothing. One gather, of those rows only.
  std::vector<double> gather_series(const std::vector<double>& mine, const char* stage);

  Communicator& all_;
  Communicator* group_;
  GroupRun run_;
  MeasureSettings settings_;
  Buffer* send_;
  Buffer* recv_;
  std::unique_ptr<Registration> registration_;  // of send_ and recv_ with the group (-R)
  std::unique_ptr<Timer> timer_;
  std::unique_ptr<OverlapLoad> load_;  // with --overlap-load, on the groups' ranks
  ClockSync clocks_;
  std::optional<MarginController> margin_;  // once the clocks were first synchronised
  SyncOutcome last_sync_;                   // rank 0
};

}  // namespace collbench
