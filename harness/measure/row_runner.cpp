#include "row_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "benches/collectives/pattern.h"
#include "harness/measure/fault_guard.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

constexpr int kRoot = 0;
constexpr int kContinue = 0;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::span<std::byte> bytes_of(auto& value) {
  return std::as_writable_bytes(std::span(&value, 1));
}

std::vector<double> column_medians(const RawSamples& raw) {
  std::vector<double> medians(raw.nranks);
  std::vector<double> column(raw.sample_count());
  for (int r = 0; r < raw.nranks; ++r) {
    for (std::size_t s = 0; s < column.size(); ++s) column[s] = raw.per_rank_seconds[s * raw.nranks + r];
    medians[r] = summarize(column).median;
  }
  return medians;
}

}  // namespace

struct RowRunner::Sampled {
  std::vector<double> slowest;  // per sample
  RawSamples raw;
  StopReason reason = StopReason::converged;
  int ops_per_sample = 1;
};

RowRunner::RowRunner(const GroupRun& run, const MeasureSettings& settings, const SweepPlan& plan,
                     CollectiveKind first_collective)
    : all_(*run.all), group_(run.group), run_(run), settings_(settings) {
  if (!group_) return;  // this rank sits the placement out: control plane only
  // The first call on a communicator sets up its connections; it is never timed. One float
  // per rank, of the collective the sweep starts with (a pinned algorithm may run no other).
  const int p = group_->size();
  const CollectiveCall first{first_collective, DataType::float32, ReduceOp::sum,
                             shape_for(first_collective, sizeof(float) * p, sizeof(float), p),
                             false};
  const std::size_t first_bytes = sizeof(float) * p;
  // In place, the send buffer also holds the result, so it takes the larger of the two.
  const std::size_t send_bytes = std::max(plan.max_send_bytes, plan.max_recv_bytes);
  send_ = group_->allocate(std::max(send_bytes, first_bytes));
  recv_ = group_->allocate(std::max(plan.max_recv_bytes, first_bytes));
  timer_ = group_->make_timer();
  CommunicationWait wait("the first collective on the communicator");
  run_timed(*group_->prepare(first, *send_, *recv_, 1));
}

double RowRunner::run_timed(Batch& batch) {
  timer_->start();
  batch.enqueue();
  return timer_->stop_seconds();
}

std::unique_ptr<Batch> RowRunner::prepare(const CollectiveCall& call, int count) {
  return group_ ? group_->prepare(call, *send_, *recv_, count) : nullptr;
}

PatternRule RowRunner::pattern_rule(const CollectiveCall& call) const {
  return PatternRule(PatternCase{call.kind, call.datatype, call.op, group_->rank(), group_->size(),
                                 call.shape});
}

void RowRunner::fill_input(const CollectiveCall& call) {
  if (!group_) return;
  const std::size_t offset =
      call.in_place ? in_place_send_offset(call.kind, group_->rank(), call.shape) : 0;
  group_->fill_input(pattern_rule(call), *send_, offset * size_of(call.datatype));
}

std::int64_t RowRunner::validate(const CollectiveCall& call) {
  // Whether a pattern is exact depends on the type, op and group size only: the same everywhere.
  const PatternRule rule(PatternCase{call.kind, call.datatype, call.op, 0, run_.group_size, call.shape});
  if (!rule.exact()) return kNotChecked;
  long long wrong = 0;
  if (group_) {
    const PatternRule mine = pattern_rule(call);
    const std::size_t element = size_of(call.datatype);
    const auto once = prepare(call, 1);
    for (int check = 0; check < settings_.check_iters; ++check) {
      fill_input(call);
      {
        CommunicationWait wait("a validation operation");
        run_timed(*once);
      }
      if (call.in_place)
        wrong += group_->count_wrong(mine, *send_, group_->in_place_result_offset(call) * element);
      else
        wrong += group_->count_wrong(mine, *recv_, 0);
    }
  }
  CommunicationWait wait("summing wrong elements over ranks");
  return all_.sum_over_ranks(wrong);
}

double RowRunner::slowest_member_time(double mine, std::vector<double>* member_times) {
  gathered_.resize(all_.rank() == kRoot ? all_.size() : 0);
  {
    CommunicationWait wait("gathering sample times");
    all_.gather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(gathered_)),
                kRoot);
  }
  if (gathered_.empty()) return 0;
  double slowest = 0;
  for (int member : run_.members) {
    slowest = std::max(slowest, gathered_[member]);
    if (member_times) member_times->push_back(gathered_[member]);
  }
  return slowest;
}

int RowRunner::decide_on_root(int decision) {
  CommunicationWait wait("receiving rank 0's stop decision");
  all_.broadcast(bytes_of(decision), kRoot);
  return decision;
}

// Times one operation on every group: the loop is sized by the slowest.
int RowRunner::calibrate_loop(Batch* once) {
  double one_op = 0;
  {
    CommunicationWait wait("timing one operation");
    all_.barrier();
    if (once) one_op = run_timed(*once);
  }
  const double slowest = slowest_member_time(one_op, nullptr);
  int ops = 1;
  if (all_.rank() == kRoot && slowest > 0)
    ops = static_cast<int>(std::clamp(std::ceil(settings_.bandwidth_sample_s / slowest), 1.0,
                                      double(settings_.max_ops_per_sample)));
  return decide_on_root(ops);
}

RowRunner::Sampled RowRunner::sample(const CollectiveCall& call, Mode mode,
                                     std::optional<double> time_left_s) {
  if (group_ && settings_.warmup_iters > 0) {
    const auto warmups = prepare(call, settings_.warmup_iters);
    CommunicationWait wait("a warm-up operation");
    run_timed(*warmups);  // waits for the warm-ups; their time is not kept
  }
  Sampled sampled;
  auto batch = prepare(call, 1);
  if (mode == Mode::bandwidth) {
    sampled.ops_per_sample = calibrate_loop(batch.get());
    if (sampled.ops_per_sample > 1) batch = prepare(call, sampled.ops_per_sample);
  }
  sampled.raw.nranks = static_cast<int>(run_.members.size());
  StoppingState stopping(settings_.stopping, time_left_s);
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    double mine = 0;
    {
      CommunicationWait wait("a timed operation");
      all_.barrier();
      if (batch) mine = run_timed(*batch) / sampled.ops_per_sample;
    }
    const double slowest = slowest_member_time(mine, &sampled.raw.per_rank_seconds);
    int decision = kContinue;
    if (all_.rank() == kRoot) {
      sampled.slowest.push_back(slowest);
      stopping.add(slowest);
      if (const auto reason = stopping.decide(seconds_since(started)))
        decision = static_cast<int>(*reason) + 1;
    }
    decision = decide_on_root(decision);
    if (decision != kContinue) {
      sampled.reason = static_cast<StopReason>(decision - 1);
      return sampled;
    }
  }
}

std::vector<PointResult> RowRunner::measure(const PlannedRow& row, std::optional<double> time_left_s) {
  const auto row_started = std::chrono::steady_clock::now();
  std::vector<PointResult> points;
  for (bool in_place : settings_.in_place) {
    const CollectiveCall call{row.collective, row.datatype, row.op, row.shape, in_place};
    set_fault_context(fmt::format("{} {} {} {} {}", name(row.collective), name(row.datatype),
                                  uses_reduce_op(row.collective) ? name(row.op) : "",
                                  format_size(row.shape.size_bytes),
                                  in_place ? "in place" : "out of place"));
    const std::int64_t wrong = settings_.check_iters > 0 ? validate(call) : kNotChecked;
    fill_input(call);  // timed operations see the same data whether or not -c validated
    for (Mode mode : settings_.modes) {
      std::optional<double> left;
      if (time_left_s) left = *time_left_s - seconds_since(row_started);
      Sampled sampled = sample(call, mode, left);

      PointResult point;
      point.key = PointKey{settings_.backend, row.collective, row.datatype, row.op,
                           settings_.placement, run_.group_size, mode, in_place,
                           row.shape.size_bytes, row.shape.count, settings_.tuning.algorithm,
                           settings_.tuning.protocol};
      point.wrong = wrong;
      point.stop_reason = sampled.reason;
      point.ops_per_sample = sampled.ops_per_sample;
      if (all_.rank() == kRoot) {
        point.summary = summarize(sampled.slowest);
        point.algbw_gbps = point.summary.median > 0
                               ? double(row.shape.size_bytes) / point.summary.median / 1e9
                               : 0;
        point.busbw_gbps = point.algbw_gbps * busbw_factor(row.collective, run_.group_size);
        point.samples = std::move(sampled.raw);
        point.samples.world_ranks = run_.members;
        point.rank_median_seconds = column_medians(point.samples);
      }
      points.push_back(std::move(point));
      if (sampled.reason == StopReason::time_limit) return points;
    }
  }
  return points;
}

}  // namespace collbench
