#include "harness/predict/measured_overlap.h"

#include <vector>

#include "harness/fit/curve_fits.h"
#include "harness/predict/nearest_sizes.h"

namespace collbench {

std::optional<MeasuredOverlap> measured_overlap(std::span<const PointResult> points,
                                                const PointKey& curve, double size_bytes) {
  std::vector<const PointResult*> largest;  // the measured points of the largest rank count
  for (const PointResult& point : points) {
    if (rank_curve_key(point.key) != curve || !point.overlap.measured()) continue;
    if (!largest.empty() && point.key.nranks > largest.front()->key.nranks) largest.clear();
    if (largest.empty() || point.key.nranks == largest.front()->key.nranks)
      largest.push_back(&point);
  }
  if (largest.empty()) return std::nullopt;
  const PointResult* best = nearest_sizes(std::move(largest), size_bytes, 1,
                                          [](const PointResult* point) {
                                            return point->key.size_bytes;
                                          }).front();
  return MeasuredOverlap{best->key.nranks, static_cast<double>(best->key.size_bytes),
                         best->overlap};
}

StepShape step_at(const StepShape& step, const std::optional<MeasuredOverlap>& measured) {
  if (!step.measured_overlap) return step;
  StepShape at = step;
  at.overlap = measured ? measured->measure.hidden : kNoValue;
  at.overlap_ci = measured ? measured->measure.hidden_ci : Interval{at.overlap, at.overlap};
  return at;
}

}  // namespace collbench
