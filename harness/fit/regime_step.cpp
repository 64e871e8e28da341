#include "harness/fit/regime_step.h"

#include <fmt/format.h>

#include "harness/plan/sizes.h"

namespace collbench {

std::optional<RegimeStep> steepest_regime_step(std::span<const std::size_t> sizes,
                                               std::span<const double> medians,
                                               std::span<const Interval> intervals) {
  std::optional<RegimeStep> steepest;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const double size_ratio = static_cast<double>(sizes[i + 1]) / static_cast<double>(sizes[i]);
    if (!(intervals[i + 1].low > size_ratio * intervals[i].high)) continue;
    const double time_ratio = medians[i + 1] / medians[i];
    if (!steepest || time_ratio > steepest->time_ratio)
      steepest = RegimeStep{sizes[i], sizes[i + 1], time_ratio, size_ratio};
  }
  return steepest;
}

std::string describe(const RegimeStep& step) {
  return fmt::format("the time steps {:.1f}x from {} to {}, faster than the size ({:g}x): a "
                     "switch of protocol or algorithm, or a cache outgrown, that one line cannot "
                     "follow",
                     step.time_ratio, format_size(step.from_bytes), format_size(step.to_bytes),
                     step.size_ratio);
}

}  // namespace collbench
