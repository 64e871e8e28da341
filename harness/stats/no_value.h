#pragma once
// Where a number has no value (not measured, not fitted, not applicable here): a NaN, so that it
// travels through arithmetic and the stores' double columns as itself, and std::isnan finds it.
#include <limits>

namespace collbench {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

}  // namespace collbench
