#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace collbench {

// round_noise: the spread between rounds keeps the point's interval wider than the target (each
// round reached its own, or stopped once the rounds already disagreed by that much).
enum class StopReason { converged, fixed_count, max_time, time_limit, round_noise };
inline constexpr std::size_t kStopReasons = 5;  // for tallies indexed by StopReason
std::string_view name(StopReason reason);
std::optional<StopReason> parse_stop_reason(std::string_view text);

}  // namespace collbench
