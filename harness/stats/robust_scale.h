#pragma once
// The median absolute deviation times this is a normal distribution's standard deviation
// (1 / the normal's 75th percentile): MAD as a consistent estimate of sigma.

namespace collbench {

inline constexpr double kMadToSigma = 1.4826;

}  // namespace collbench
