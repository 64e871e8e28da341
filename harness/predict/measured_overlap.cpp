#include "harness/predict/measured_overlap.h"

#include <cmath>

#include "harness/fit/curve_fits.h"

namespace collbench {
namespace {

double size_distance(const PointResult& point, double size_bytes) {
  return std::abs(std::log(static_cast<double>(point.key.size_bytes) / size_bytes));
}

}  // namespace

std::optional<MeasuredOverlap> measured_overlap(std::span<const PointResult> points,
                                                const PointKey& curve, double size_bytes) {
  const PointResult* best = nullptr;
  for (const PointResult& point : points) {
    PointKey key = curve_key(point.key);
    key.nranks = 0;
    if (key != curve || !point.overlap.measured() || point.key.size_bytes == 0) continue;
    if (!best || point.key.nranks > best->key.nranks ||
        (point.key.nranks == best->key.nranks &&
         size_distance(point, size_bytes) < size_distance(*best, size_bytes)))
      best = &point;
  }
  if (!best) return std::nullopt;
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
