#include "harness/stats/false_discovery.h"

#include <algorithm>
#include <numeric>

namespace collbench {

std::vector<bool> benjamini_hochberg(std::span<const double> p_values, double q) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order,
                           [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::size_t rejected = 0;  // the largest k whose p-value is within its bound
  for (std::size_t k = 1; k <= m; ++k)
    if (p_values[order[k - 1]] <= static_cast<double>(k) * q / static_cast<double>(m)) rejected = k;
  std::vector<bool> rejects(m, false);
  for (std::size_t k = 0; k < rejected; ++k) rejects[order[k]] = true;
  return rejects;
}

}  // namespace collbench
