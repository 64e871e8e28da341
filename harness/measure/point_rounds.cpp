#include "harness/measure/point_rounds.h"

#include <cmath>
#include <numeric>
#include <random>

#include "collectives/collective.h"
#include "harness/stats/reading_step.h"
#include "harness/stats/rounds.h"
#include "harness/stats/uniform_index.h"

namespace collbench {
namespace {

// A limit that cut a round short cuts the point short.
int weight(StopReason reason) {
  switch (reason) {
    case StopReason::time_limit: return 2;
    case StopReason::max_time: return 1;
    default: return 0;
  }
}

template <typename T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

std::vector<std::size_t> round_order(std::size_t rows, int round, int rounds, std::uint64_t seed) {
  std::vector<std::size_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  if (round + 1 >= rounds) return order;
  // seed_seq's mixing is specified by the standard: the same orders with every library.
  std::seed_seq mixed{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                      static_cast<std::uint32_t>(round)};
  std::mt19937_64 engine(mixed);
  for (std::size_t i = rows; i > 1; --i) std::swap(order[i - 1], order[uniform_index(engine, i)]);
  return order;
}

void add_round(PointResult& point, PointResult round) {
  RawSamples& samples = point.samples;
  samples.round_starts.push_back(samples.sample_count());
  append(samples.per_rank_seconds, round.samples.per_rank_seconds);
  append(samples.start_lateness_seconds, round.samples.start_lateness_seconds);
  point.slowest.round_starts.push_back(point.slowest.seconds.size());
  append(point.slowest.seconds, round.slowest.seconds);
  append(point.own_seconds, round.own_seconds);
  if (weight(round.stop_reason) > weight(point.stop_reason)) point.stop_reason = round.stop_reason;
  point.invalid_samples += round.invalid_samples;
  point.window_margin_s = round.window_margin_s;
  point.clock_error_s = std::fmax(point.clock_error_s, round.clock_error_s);
  if (round.checks.after_timing != kNotChecked) point.checks.after_timing = round.checks.after_timing;
}

std::vector<RoundMedian> round_estimates_of(const PointResult& point) {
  return round_estimates(point.slowest.seconds, point.slowest.round_starts, point.sample_step_s);
}

double own_median(const PointResult& point) {
  std::vector<double> own = point.own_seconds;
  return own.empty() ? kNotApplicable : median_by_selection(own);
}

double own_mean(const PointResult& point) {
  const std::vector<double>& own = point.own_seconds;
  if (own.empty()) return kNotApplicable;
  return std::accumulate(own.begin(), own.end(), 0.0) / static_cast<double>(own.size());
}

double osu_mean(const PointResult& point, std::span<const double> rank_means) {
  if (point.key.mode != Mode::latency || point.key.sync != SampleStart::barrier ||
      rank_means.empty())
    return kNotApplicable;
  return std::accumulate(rank_means.begin(), rank_means.end(), 0.0) /
         static_cast<double>(rank_means.size());
}

void finish_point(PointResult& point, double target_ci) {
  const std::vector<double>& slowest = point.slowest.seconds;
  point.summary = summarize(slowest);
  const double step = point.sample_step_s;
  const double between = round_noise_halfwidth(round_estimates_of(point));
  const Interval interval = with_round_noise(
      widened_by_step({point.summary.ci_low, point.summary.ci_high}, step), point.summary.median,
      between);
  point.summary.ci_low = interval.low;
  point.summary.ci_high = interval.high;
  const double size = static_cast<double>(point.key.size_bytes);
  point.algbw_gbps = point.summary.median > 0 ? size / point.summary.median / 1e9 : 0;
  point.busbw_gbps = point.algbw_gbps * busbw_factor(point.key.collective, point.key.nranks);
  if (point.stop_reason == StopReason::converged &&
      std::expm1(between) > held_target(target_ci, point.summary.median, step))
    point.stop_reason = StopReason::round_noise;
}

}  // namespace collbench
