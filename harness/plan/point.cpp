#include "point.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/collective.h"

namespace collbench {

std::string_view name(Mode mode) { return mode == Mode::latency ? "latency" : "bandwidth"; }

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "latency") return Mode::latency;
  if (text == "bandwidth") return Mode::bandwidth;
  return std::nullopt;
}

std::string_view name(SampleStart start) { return start == SampleStart::window ? "window" : "barrier"; }

std::optional<SampleStart> parse_sample_start(std::string_view text) {
  if (text == "window") return SampleStart::window;
  if (text == "barrier") return SampleStart::barrier;
  return std::nullopt;
}

SampleStart sync_of(Mode mode, SampleStart latency_sync) {
  return mode == Mode::latency ? latency_sync : SampleStart::barrier;
}

std::vector<double> slowest_rank_times(const RawSamples& raw) {
  std::vector<double> slowest(raw.sample_count());
  for (std::size_t s = 0; s < slowest.size(); ++s) {
    const auto row = raw.per_rank_seconds.begin() + static_cast<std::ptrdiff_t>(s * raw.nranks);
    slowest[s] = *std::max_element(row, row + raw.nranks);
  }
  return slowest;
}

std::vector<RoundMedian> kept_round_medians(const PointResult& point) {
  return round_estimates(slowest_rank_times(point.samples), point.samples.round_starts,
                         point.sample_step_s);
}

bool converged(const PointResult& point) {
  return (point.stop_reason == StopReason::converged ||
          point.stop_reason == StopReason::fixed_count) &&
         median_interval_covers(point.summary.samples);
}

std::string checks_text(const Checks& checks) {
  std::vector<std::string> parts;
  for (const auto& [wrong, when] : {std::pair{checks.before_timing, "before"},
                                    std::pair{checks.after_timing, "after"}})
    if (wrong != kNotChecked)
      parts.push_back(fmt::format("{} wrong in the check {} timing", wrong, when));
  return parts.empty() ? "not checked" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string_view redop_label(const PointKey& key) {
  return uses_reduce_op(key.collective) ? name(key.op) : std::string_view("none");
}

}  // namespace collbench
