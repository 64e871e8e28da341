#include "harness/measure/loop_sizing.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

double median_of(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return percentile_of_sorted(sorted, 50);
}

}  // namespace

int ops_for(std::span<const double> op_times_s, const LoopSizing& sizing) {
  const double op = op_times_s.empty() ? 0 : median_of(op_times_s);
  if (op <= 0) return sizing.max_ops;
  return static_cast<int>(std::clamp(std::ceil(sizing.target_s / op), double(sizing.min_ops),
                                     double(sizing.max_ops)));
}

std::optional<int> resized_loop(std::span<const double> per_op_times_s, int ops,
                                const LoopSizing& sizing) {
  if (per_op_times_s.empty()) return std::nullopt;
  const double loop_s = median_of(per_op_times_s) * ops;
  const bool off = loop_s > sizing.target_s * sizing.tolerance ||
                   loop_s * sizing.tolerance < sizing.target_s;
  const int wanted = ops_for(per_op_times_s, sizing);
  if (!off || wanted == ops) return std::nullopt;
  return wanted;
}

}  // namespace collbench
