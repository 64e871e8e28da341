#include "harness/measure/loop_sizing.h"

#include <algorithm>
#include <cmath>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

int ops_for_median(double op_s, const LoopSizing& sizing) {
  if (op_s <= 0) return sizing.max_ops;
  return static_cast<int>(std::clamp(std::ceil(sizing.target_s / op_s), double(sizing.min_ops),
                                     double(sizing.max_ops)));
}

}  // namespace

int ops_for(std::span<const double> op_times_s, const LoopSizing& sizing) {
  return ops_for_median(summarize(op_times_s).median, sizing);
}

std::optional<int> resized_loop(std::span<const double> per_op_times_s, int ops,
                                const LoopSizing& sizing) {
  if (per_op_times_s.empty()) return std::nullopt;
  const double op_s = summarize(per_op_times_s).median;
  const double loop_s = op_s * ops;
  const bool off = loop_s > sizing.target_s * sizing.tolerance ||
                   loop_s * sizing.tolerance < sizing.target_s;
  const int wanted = ops_for_median(op_s, sizing);
  if (!off || wanted == ops) return std::nullopt;
  return wanted;
}

}  // namespace collbench
