#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace collbench {

enum class StopReason { converged, fixed_count, max_time, time_limit };
inline constexpr std::size_t kStopReasons = 4;  // for tallies indexed by StopReason
std::string_view name(StopReason reason);
std::optional<StopReason> parse_stop_reason(std::string_view text);

}  // namespace collbench
