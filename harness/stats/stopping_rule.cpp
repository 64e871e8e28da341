#include "harness/stats/stopping_rule.h"

#include <algorithm>
#include <array>
#include <utility>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

constexpr std::array<std::pair<StopReason, std::string_view>, 4> kStopReasonNames{{
    {StopReason::converged, "converged"},
    {StopReason::fixed_count, "fixed_count"},
    {StopReason::max_time, "max_time"},
    {StopReason::time_limit, "time_limit"},
}};

// The 95% interval of the median lies within target_ci of it on both sides. An interval that
// cannot reach 95% coverage (too few samples) never counts, however narrow it looks.
bool median_is_tight(std::span<const double> sorted, double target_ci) {
  const MedianInterval interval = median_interval_of_sorted(sorted);
  if (!interval.covers) return false;
  const double median = percentile_of_sorted(sorted, 50);
  const double half_width = std::max(median - interval.low, interval.high - median);
  return half_width <= target_ci * median;
}

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

StoppingState::StoppingState(const StoppingRule& rule, std::optional<double> time_left_s)
    : rule_(rule), time_left_s_(time_left_s) {}

// Kept sorted on insertion so that decide(), called after every sample, only reads.
void StoppingState::add(double sample_s) {
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), sample_s), sample_s);
}

std::optional<StopReason> StoppingState::decide(double elapsed_s) const {
  // A point with no sample has nothing to report, whatever the clock says.
  if (sorted_.empty()) return std::nullopt;
  if (rule_.fixed_samples && samples() >= *rule_.fixed_samples) return StopReason::fixed_count;
  const bool adaptive = !rule_.fixed_samples;
  if (adaptive && samples() >= rule_.min_samples && elapsed_s >= rule_.min_time_s &&
      median_is_tight(sorted_, rule_.target_ci)) {
    return StopReason::converged;
  }
  // The sweep's --time-limit is a hard wall (a Slurm window); --max-time yields to
  // --min-samples, since a point without enough samples for an interval means nothing.
  if (time_left_s_ && elapsed_s >= *time_left_s_) return StopReason::time_limit;
  if (adaptive && elapsed_s >= rule_.max_time_s && samples() >= rule_.min_samples)
    return StopReason::max_time;
  return std::nullopt;
}

}  // namespace collbench
