#pragma once
// Where a number has no value (not measured, not fitted, not applicable here): a NaN, so that it
// travels through arithmetic and the stores' double columns as itself, and std::isnan finds it.
#include <cmath>
#include <limits>

namespace collbench {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// A median time that can be judged: measured, finite and above zero.
inline bool usable_median(double median_s) { return median_s > 0 && std::isfinite(median_s); }

}  // namespace collbench
