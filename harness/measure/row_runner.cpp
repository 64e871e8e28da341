#include "row_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "collectives/pattern.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/host_clock.h"
#include "harness/measure/point_rounds.h"
#include "harness/plan/sizes.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

// Windows each round of a window-started point runs and drops before its samples (never more
// than -w): the warm-up operations run back to back, not through the wait for a window. Measured
// without these on 2 ranks of this VM, the first sample of a later round took 1.12-1.14 times
// the median of the round's samples from the 7th on and its first three 1.05-1.07 times; with
// them 1.00 and 1.00-1.02 (medians over the rounds of 60 samples or more, three default latency
// sweeps each). A round cut short at 6 samples otherwise reads slow, and its rounds disagree.
constexpr int kWarmupWindows = 3;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct RowRunner::Sampled {
  std::vector<double> slowest;  // rank 0 (every rank from a barrier): per valid sample
  std::vector<double> own;      // this rank's time per valid sample; empty off the groups
  RawSamples raw;
  StopReason reason = StopReason::converged;
  int ops_per_sample = 1;  // timed: the batch's, times its launches
  SampleStart start = SampleStart::barrier;
  std::uint64_t invalid = 0;
  double margin_s = kNotApplicable;
  double clock_error_s = kNotApplicable;
};

// Rank 0's word after each window sample, so that every rank does the same next; and the
// bandwidth loop's length.
struct RowRunner::Order {
  enum Command : std::int32_t { next_sample, stop, resynchronise };
  Command command = next_sample;
  std::int32_t value = 0;  // stop: the StopReason; from size_loop: the loop length
  double t0 = 0;           // next_sample in a window: its start, on rank 0's clock
  std::int32_t previous_valid = 1;  // after a window: whether its sample counts
};

RowRunner::RowRunner(const GroupRun& run, const MeasureSettings& settings, RunBuffers& buffers,
                     CollectiveKind first_collective)
    : all_(*run.all),
      group_(run.group),
      run_(run),
      settings_(settings),
      send_(buffers.send.get()),
      recv_(buffers.recv.get()),
      clocks_(*run.all) {
  if (!group_) return;  // this rank sits the placement out: control plane only
  // The first call on a communicator sets up its connections; it is never timed. One float
  // per rank, of the collective the sweep starts with (a pinned algorithm may run no other).
  const int p = group_->size();
  const CollectiveCall first{first_collective, DataType::float32, ReduceOp::sum,
                             shape_for(first_collective, sizeof(float) * p, sizeof(float), p),
                             false};
  timer_ = group_->make_timer();
  if (settings.overlap_load) load_ = group_->make_load(*settings.overlap_load, settings.load_site);
  {
    CommunicationWait wait("registering the buffers with the communicator");
    registration_ = group_->register_buffers(*send_, *recv_);
  }
  CommunicationWait wait("the first collective on the communicator");
  run_timed(*group_->prepare(first, *send_, *recv_, 1));
}

RowRunner::~RowRunner() {
  CommunicationWait wait("deregistering the buffers");
  registration_.reset();
}

double RowRunner::run_timed(Batch& batch, int launches) {
  timer_->start();
  for (int i = 0; i < launches; ++i) batch.enqueue();
  return timer_->stop_seconds();
}

std::unique_ptr<Batch> RowRunner::prepare(const CollectiveCall& call, int count) {
  return group_ ? group_->prepare(call, *send_, *recv_, count) : nullptr;
}

PatternRule RowRunner::pattern_rule(const CollectiveCall& call, int repetition) const {
  PatternCase pattern{call.kind,      call.datatype, call.op,   group_->rank(),
                      group_->size(), call.shape,    call.root, call.in_place};
  pattern.root_output = group_->fills_broadcast_root_output();
  pattern.seed = pattern_seed(pattern, repetition);
  return PatternRule(pattern);
}

void RowRunner::fill_input(const CollectiveCall& call, const PatternRule& rule) {
  const std::size_t offset =
      call.in_place ? in_place_send_offset(call.kind, group_->rank(), call.shape) : 0;
  group_->fill_input(rule, *send_, offset * size_of(call.datatype));
}

std::int64_t RowRunner::validate(const CollectiveCall& call, int first_repetition) {
  // Whether a pattern is exact depends on the type, op and group size only: the same everywhere.
  const PatternRule rule(PatternCase{call.kind, call.datatype, call.op, 0, run_.group_size, call.shape});
  if (!rule.exact()) return kNotChecked;
  long long wrong = 0;
  if (group_) {
    Buffer& result = call.in_place ? *send_ : *recv_;
    const std::size_t result_offset =
        call.in_place ? group_->in_place_result_offset(call) * size_of(call.datatype) : 0;
    const auto once = prepare(call, 1);
    for (int check = 0; check < settings_.check_iters; ++check) {
      // A fresh pattern over poison: what an earlier check or point left is wrong for this one.
      const PatternRule mine = pattern_rule(call, first_repetition + check);
      group_->poison(mine, result);
      fill_input(call, mine);
      {
        CommunicationWait wait("a validation operation");
        run_timed(*once);
      }
      wrong += group_->count_wrong(mine, result, result_offset);
    }
  }
  CommunicationWait wait("summing wrong elements over ranks");
  return all_.sum_over_ranks(wrong);
}

std::vector<double> RowRunner::gather_series(const std::vector<double>& mine, const char* stage) {
  const std::vector<std::size_t> rows = evenly_spaced_rows(
      mine.size(), settings_.rows_per_round.value_or(mine.size()));
  std::vector<double> sent;
  for (std::size_t row : rows) sent.push_back(mine[row]);
  std::vector<double> all(all_.rank() == kCoordinatorRank ? sent.size() * all_.size() : 0);
  {
    CommunicationWait wait(stage);
    all_.gather(std::as_bytes(std::span(sent)), std::as_writable_bytes(std::span(all)),
                kCoordinatorRank);
  }
  std::vector<double> matrix;
  if (all.empty()) return matrix;
  for (std::size_t row = 0; row < sent.size(); ++row)
    for (int member : run_.members) matrix.push_back(all[member * sent.size() + row]);
  return matrix;
}

RowRunner::Order RowRunner::broadcast_order(Order order) {
  CommunicationWait wait("receiving rank 0's word on the next sample");
  all_.broadcast_value(order, kCoordinatorRank);
  return order;
}

LibraryChoice RowRunner::library_choice(const CollectiveCall& call) {
  LibraryChoice choice = group_ ? group_->library_choice(call, *send_, *recv_) : LibraryChoice{};
  CommunicationWait wait("learning the library's choice");
  all_.broadcast_value(choice, run_.members.front());
  return choice;
}

void RowRunner::synchronise_clocks() {
  {
    CommunicationWait wait("synchronising clocks");
    last_sync_ = clocks_.synchronise();
  }
  if (!margin_) margin_.emplace(initial_margin());
}

// The windows' first margin, from what a broadcast takes to reach the slowest rank. Every rank
// takes part; rank 0's result is the one used.
double RowRunner::initial_margin() {
  if (all_.size() == 1) return MarginController::kMinimumSeconds;
  constexpr int kBroadcasts = 5;
  std::vector<double> delays;
  for (int i = 0; i < kBroadcasts; ++i) {
    double sent = clocks_.now_on_root_clock();
    {
      CommunicationWait wait("timing a broadcast for the window margin");
      all_.broadcast_value(sent, kCoordinatorRank);
    }
    const auto [slowest] = maxima_over_ranks(std::array{clocks_.now_on_root_clock() - sent},
                                             "reducing broadcast times");
    delays.push_back(slowest);
  }
  return MarginController::initial(delays, last_sync_.round_trip_s);
}

// Sizes the loop from single operations timed on every group: the slowest group's median.
int RowRunner::size_loop(Batch* once) {
  std::vector<double> probes;
  for (int i = 0; i < settings_.loop.probes; ++i) {
    double one_op = Communicator::kNoMaximum;
    {
      CommunicationWait wait("timing one operation");
      all_.barrier();
      if (once) one_op = run_timed(*once);
    }
    const auto [slowest] = maxima_over_ranks(std::array{one_op}, "reducing sample times");
    probes.push_back(slowest);
  }
  Order order;
  if (all_.rank() == kCoordinatorRank) order.value = ops_for(probes, settings_.loop);
  return broadcast_order(order).value;
}

RowRunner::StoppingInputs RowRunner::rank0_stopping_inputs(StoppingInputs mine) {
  struct Head {
    std::int32_t rounds;
    std::int32_t limited;
    double time_left_s;
  } head{static_cast<std::int32_t>(mine.earlier_rounds.size()), mine.time_left_s.has_value(),
         mine.time_left_s.value_or(0)};
  CommunicationWait wait("receiving rank 0's inputs to the stopping rule");
  all_.broadcast_value(head, kCoordinatorRank);
  mine.earlier_rounds.resize(head.rounds);
  if (head.rounds > 0)
    all_.broadcast(std::as_writable_bytes(std::span(mine.earlier_rounds)), kCoordinatorRank);
  mine.time_left_s = head.limited ? std::optional(head.time_left_s) : std::nullopt;
  return mine;
}

RowRunner::Sampled RowRunner::sample_from_barrier(const CollectiveCall& call, Mode mode,
                                                  StoppingState& stopping) {
  Sampled sampled;
  sampled.raw.nranks = static_cast<int>(run_.members.size());
  // A bandwidth sample launches its batch of operations this many times (-G N), as nccl-tests
  // launches its graph; its time is per operation, over all of them.
  const int launches = mode == Mode::bandwidth ? settings_.launches_per_bandwidth_sample : 1;
  const auto batch_of = [&](int ops) {
    sampled.ops_per_sample = ops * launches;
    stopping.read_in_steps_of(settings_.timer_step_s / sampled.ops_per_sample);
    return prepare(call, ops);
  };
  auto batch = prepare(call, 1);
  if (mode == Mode::bandwidth) batch = batch_of(size_loop(batch.get()));
  bool resized = mode == Mode::latency;
  std::vector<double> mine_per_sample;
  const bool root = all_.rank() == kCoordinatorRank;
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    const double iteration_start = steady_seconds();
    double mine = Communicator::kNoMaximum;
    {
      CommunicationWait wait("a timed operation");
      all_.barrier();
      if (batch) mine = as_recorded(run_timed(*batch, launches) / sampled.ops_per_sample);
    }
    mine_per_sample.push_back(mine);
    // Rank 0's clock times the point for every rank. Every rank reads its own, so that none
    // does more than the others before the next barrier.
    const double mine_elapsed_s = seconds_since(started);
    const auto [slowest, elapsed_s] = maxima_over_ranks(
        std::array{mine, root ? mine_elapsed_s : Communicator::kNoMaximum},
        "reducing sample times");
    // Every rank, in a group or not, waits about this long for a sample: the watchdog's floor.
    note_sample_seconds(steady_seconds() - iteration_start);
    // Every rank runs the rule on the same numbers, and so decides as rank 0 would, with no word
    // from it: a word from one rank reaches the others a message later, the barrier keeps that
    // lag, and one rank spends it inside its next operation (docs/running.md, "What a latency
    // sample is").
    sampled.slowest.push_back(slowest);
    stopping.add(slowest);
    if (!resized && sampled.slowest.size() == std::size_t(settings_.loop.check_after)) {
      resized = true;
      if (const auto resize = resized_loop(sampled.slowest, sampled.ops_per_sample / launches,
                                           settings_.loop)) {
        // The samples so far had the wrong loop: redo.
        sampled.slowest.clear();
        mine_per_sample.clear();
        stopping.restart();
        batch = batch_of(*resize);
        continue;
      }
    }
    if (const auto reason = stopping.decide(elapsed_s)) {
      sampled.reason = *reason;
      if (batch) sampled.own = mine_per_sample;
      sampled.raw.per_rank_seconds =
          gather_series(mine_per_sample, "gathering the point's sample times");
      return sampled;
    }
  }
}

RowRunner::Sampled RowRunner::sample_in_windows(const CollectiveCall& call,
                                                StoppingState& stopping, int warmup_windows) {
  Sampled sampled;
  sampled.start = SampleStart::window;
  sampled.raw.nranks = static_cast<int>(run_.members.size());
  const auto batch = prepare(call, 1);
  const bool root = all_.rank() == kCoordinatorRank;
  const auto started = std::chrono::steady_clock::now();
  // Rank 0's next word: a fresh model when the clocks' is too old, else a window.
  const auto next = [&] {
    if (clocks_.age_s() > ClockSync::kMaxModelAgeSeconds) return Order{Order::resynchronise};
    return Order{Order::next_sample, 0, clocks_.now_on_root_clock() + margin_->margin_s()};
  };
  Order order = broadcast_order(root ? next() : Order{});
  std::vector<double> my_ends, my_latenesses;  // valid samples only
  for (;;) {
    if (order.command == Order::stop) break;
    if (order.command == Order::resynchronise) {
      synchronise_clocks();
      order = broadcast_order(root ? next() : Order{});
      continue;
    }
    const bool warming = warmup_windows > 0;
    if (warming) --warmup_windows;
    const double iteration_start = steady_seconds();
    WindowReport mine;
    mine.slack_s = order.t0 - clocks_.now_on_root_clock();
    if (batch) {
      CommunicationWait wait("a timed operation");
      // Nothing between the moment and the operation: the clock reading is converted after.
      const double local_start = wait_until(clocks_.to_local(order.t0));
      const double elapsed = run_timed(*batch);
      const double start = clocks_.to_root(local_start);
      mine.start_lateness_s = as_recorded(start - order.t0);
      mine.end_s = as_recorded(start + elapsed - order.t0);
    }
    my_ends.push_back(mine.end_s);
    my_latenesses.push_back(mine.start_lateness_s);
    const auto [latest_end, latest_learning] = maxima_over_ranks(
        batch ? std::array{mine.end_s, -mine.slack_s}
              : std::array{Communicator::kNoMaximum, Communicator::kNoMaximum},
        "reducing sample times");
    note_sample_seconds(steady_seconds() - iteration_start);
    if (root) {
      const WindowVerdict verdict =
          judge_window({.end_s = latest_end, .learnt_after_t0_s = latest_learning});
      margin_->record(verdict.valid);
      std::optional<StopReason> reason;
      if (!warming) {
        if (verdict.valid) {
          sampled.slowest.push_back(verdict.time_s);
          stopping.add(verdict.time_s);
        } else {
          ++sampled.invalid;
        }
        reason = stopping.decide(seconds_since(started));
      }
      order = reason ? Order{Order::stop, static_cast<std::int32_t>(*reason)} : next();
      order.previous_valid = verdict.valid && !warming;
    }
    order = broadcast_order(order);
    // Every rank drops a warm-up window, and the sample a rank reached late.
    if (!order.previous_valid) {
      my_ends.pop_back();
      my_latenesses.pop_back();
    }
  }
  sampled.reason = static_cast<StopReason>(order.value);
  if (batch) sampled.own = my_ends;
  sampled.raw.per_rank_seconds = gather_series(my_ends, "gathering the point's sample times");
  sampled.raw.start_lateness_seconds =
      gather_series(my_latenesses, "gathering the point's start lateness");
  // Measuring the clocks again says how far they had drifted by the end of the point, and
  // gives the next point a fresh model.
  synchronise_clocks();
  if (root) {
    sampled.margin_s = margin_->margin_s();
    sampled.clock_error_s = last_sync_.residual_s;
  }
  return sampled;
}

RowRunner::Sampled RowRunner::sample(const CollectiveCall& call, Mode mode,
                                     std::optional<double> time_left_s,
                                     const PointResult* earlier) {
  // A point's first round makes at least one untimed call, -w 0 too: a library sets up what a
  // call needs at its first (NCCL connects the channels of the algorithm and protocol it picks
  // at their first use), and a sample must not time that. Later rounds find it set up: one
  // operation brings its buffers back into cache.
  const int warmups_now =
      earlier ? std::min(settings_.warmup, 1) : std::max(settings_.warmup, 1);
  if (group_ && warmups_now > 0) {
    const auto warmups = prepare(call, warmups_now);
    CommunicationWait wait("a warm-up operation");
    run_timed(*warmups);  // waits for the warm-ups; their time is not kept
  }
  // In windows only rank 0 decides (it names every window's start); from a barrier every rank
  // does, with rank 0's inputs to the rule.
  const bool in_windows = sync_of(mode, settings_.latency_start) == SampleStart::window;
  StoppingInputs inputs{time_left_s,
                        earlier ? round_estimates_of(*earlier) : std::vector<RoundMedian>{}};
  if (!in_windows) inputs = rank0_stopping_inputs(std::move(inputs));
  StoppingRule rule = settings_.stopping;
  rule.sample_step_s = settings_.timer_step_s;  // one operation a sample until a loop is sized
  StoppingState stopping(rule, inputs.time_left_s, inputs.earlier_rounds);
  if (in_windows)
    return sample_in_windows(call, stopping, std::min(settings_.warmup, kWarmupWindows));
  return sample_from_barrier(call, mode, stopping);
}

std::vector<PointResult> RowRunner::measure(const PlannedRow& row, std::optional<double> time_left_s,
                                            std::span<const PointResult> earlier_rounds,
                                            bool last_round) {
  const bool first_round = earlier_rounds.empty();
  const bool checking = settings_.check_iters > 0;
  const auto row_started = std::chrono::steady_clock::now();
  std::vector<PointResult> points;
  for (bool in_place : settings_.in_place) {
    if (in_place && row.out_of_place_only) continue;
    const CollectiveCall call{row.collective, row.datatype, row.op, row.shape, in_place, row.root};
    set_fault_context(fmt::format("{} {} {} {} {}", name(row.collective), name(row.datatype),
                                  uses_reduce_op(row.collective) ? name(row.op) : "",
                                  format_size(row.shape.size_bytes),
                                  in_place ? "in place" : "out of place"));
    Checks checks;
    if (first_round && checking) checks.before_timing = validate(call, 0);
    // Timed operations see the same data whether or not -c validated.
    if (group_) fill_input(call, pattern_rule(call, 0));
    const std::size_t first_point = points.size();
    for (Mode mode : settings_.modes) {
      std::optional<double> left;
      if (time_left_s) left = *time_left_s - seconds_since(row_started);
      const std::size_t index = points.size();
      Sampled sampled = sample(call, mode, left,
                               index < earlier_rounds.size() ? &earlier_rounds[index] : nullptr);
      const LibraryChoice chosen = library_choice(call);
      // Once per point: the load's cost needs no rounds against drift, being a ratio of
      // samples taken side by side.
      OverlapMeasure overlap;
      if (settings_.overlap_load && mode == Mode::latency && first_round &&
          sampled.reason != StopReason::time_limit) {
        std::vector<double> alone = sampled.slowest;  // rank 0's is the one used
        overlap = sample_overlap(call, alone.empty() || all_.rank() != kCoordinatorRank
                                           ? 0
                                           : median_by_selection(alone));
      }

      PointResult point;
      point.key = PointKey{settings_.backend, row.collective, row.datatype, row.op,
                           settings_.placement, run_.group_size, mode, in_place,
                           row.shape.size_bytes, row.shape.count, settings_.tuning.algorithm,
                           settings_.tuning.protocol, row.root, sampled.start};
      point.checks = checks;
      point.stop_reason = sampled.reason;
      point.ops_per_sample = sampled.ops_per_sample;
      point.sample_step_s = settings_.timer_step_s / sampled.ops_per_sample;
      point.invalid_samples = sampled.invalid;
      point.window_margin_s = sampled.margin_s;
      point.clock_error_s = sampled.clock_error_s;
      point.chosen = chosen;
      point.overlap = overlap;
      point.own_seconds = std::move(sampled.own);
      if (all_.rank() == kCoordinatorRank) {
        point.slowest.seconds = std::move(sampled.slowest);
        point.samples = std::move(sampled.raw);
        point.samples.world_ranks = run_.members;
      }
      points.push_back(std::move(point));
      if (sampled.reason == StopReason::time_limit) return points;
    }
    // As nccl-tests checks after timing: a fabric that stops writing mid-sweep is caught too.
    if (last_round && checking) {
      const std::int64_t after = validate(call, settings_.check_iters);
      for (std::size_t i = first_point; i < points.size(); ++i) points[i].checks.after_timing = after;
    }
  }
  return points;
}

}  // namespace collbench
