#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace collbench {

// round_noise: every round reached the target, but the spread between rounds keeps the point's
// interval wider than it.
enum class StopReason { converged, fixed_count, max_time, time_limit, round_noise };
inline constexpr std::size_t kStopReasons = 5;  // for tallies indexed by StopReason
std::string_view name(StopReason reason);
std::optional<StopReason> parse_stop_reason(std::string_view text);

}  // namespace collbench
