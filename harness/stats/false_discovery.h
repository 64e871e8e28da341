#pragma once
// Many tests at once: Benjamini and Hochberg's step-up rule keeps the expected share of false
// discoveries among the rejected at or below q (independent or positively dependent tests).
#include <span>
#include <vector>

namespace collbench {

// Whether each p-value is rejected: all those up to the largest k with p₍ₖ₎ <= k q / m.
std::vector<bool> benjamini_hochberg(std::span<const double> p_values, double q);

}  // namespace collbench
