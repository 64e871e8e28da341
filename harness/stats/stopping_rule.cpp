#include "harness/stats/stopping_rule.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <utility>

#include "harness/stats/reading_step.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

constexpr std::array<std::pair<StopReason, std::string_view>, kStopReasons> kStopReasonNames{{
    {StopReason::converged, "converged"},
    {StopReason::fixed_count, "fixed_count"},
    {StopReason::max_time, "max_time"},
    {StopReason::time_limit, "time_limit"},
    {StopReason::round_noise, "round_noise"},
}};

}  // namespace

std::string_view name(StopReason reason) {
  for (const auto& [known, text] : kStopReasonNames) {
    if (known == reason) return text;
  }
  return "unknown";
}

std::optional<StopReason> parse_stop_reason(std::string_view text) {
  for (const auto& [reason, known] : kStopReasonNames) {
    if (known == text) return reason;
  }
  return std::nullopt;
}

StoppingRule round_share(const StoppingRule& point_rule, int rounds) {
  StoppingRule rule = point_rule;
  const double share = rounds;
  rule.min_samples = (rule.min_samples + rounds - 1) / rounds;
  rule.target_ci *= std::sqrt(share);
  rule.min_time_s /= share;
  rule.max_time_s /= share;
  rule.rounds = rounds;
  rule.point_target_ci = point_rule.target_ci;
  return rule;
}

StoppingState::StoppingState(const StoppingRule& rule, std::optional<double> time_left_s,
                             std::span<const RoundMedian> earlier_rounds)
    : rule_(rule),
      time_left_s_(time_left_s),
      earlier_(earlier_rounds.begin(), earlier_rounds.end()) {
  read_in_steps_of(rule.sample_step_s);
}

void StoppingState::read_in_steps_of(double step) {
  rule_.sample_step_s = step;
  // The point's median is not known yet; its earlier rounds' (geometric) mean stands for it.
  const LogSpread spread = log_spread(medians_of(earlier_));
  const double median = spread.count > 0 ? std::exp(spread.mean) : 0;
  earlier_rounds_ =
      RoundsSoFar(earlier_, rule_.rounds, held_target(rule_.point_target_ci, median, step));
}

// The median's 95% interval, widened by the samples' step; none when too few samples give it
// that coverage, however narrow it would look. Read after every sample: three order
// statistics, no pass over the samples.
std::optional<StoppingState::MedianInterval> StoppingState::median_interval() const {
  const std::size_t n = sorted_.size();
  const std::size_t rank = median_interval_rank(n);
  if (rank == 0) return std::nullopt;
  // numpy's median: the upper middle value moved halfway down to the lower one when n is even.
  const double upper_middle = sorted_.at(n / 2);
  const double median =
      n % 2 ? upper_middle : upper_middle - (upper_middle - sorted_.at(n / 2 - 1)) * 0.5;
  return MedianInterval{
      median, widened_by_step({sorted_.at(rank - 1), sorted_.at(n - rank)}, rule_.sample_step_s)};
}

std::optional<StopReason> StoppingState::decide(double elapsed_s) const {
  // A point with no sample has nothing to report, whatever the clock says.
  if (samples() == 0) return std::nullopt;
  if (rule_.fixed_samples && samples() >= *rule_.fixed_samples) return StopReason::fixed_count;
  const bool adaptive = !rule_.fixed_samples;
  if (adaptive && samples() >= rule_.min_samples && elapsed_s >= rule_.min_time_s) {
    if (const auto estimate = median_interval()) {
      const auto& [median, interval] = *estimate;
      const double target = held_target(rule_.target_ci, median, rule_.sample_step_s);
      if (std::max(median - interval.low, interval.high - median) <= target * median)
        return StopReason::converged;
      if (earlier_rounds_.cannot_converge(interval)) return StopReason::round_noise;
    }
  }
  // The sweep's --time-limit is a hard wall (a Slurm window); --max-time yields to
  // --min-samples, since a point without enough samples for an interval means nothing.
  if (time_left_s_ && elapsed_s >= *time_left_s_) return StopReason::time_limit;
  if (adaptive && elapsed_s >= rule_.max_time_s && samples() >= rule_.min_samples)
    return StopReason::max_time;
  return std::nullopt;
}

}  // namespace collbench
