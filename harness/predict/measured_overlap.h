#pragma once
// `predict --overlap measured`: instead of an overlap assumed, the share of the collective a
// step hid beside a compute load (`run --overlap-load`, stats/overlap.h), as measured at the
// curve's point nearest the size asked, at its largest rank count so measured.
#include <optional>
#include <span>

#include "harness/plan/point.h"
#include "harness/predict/step_efficiency.h"

namespace collbench {

struct MeasuredOverlap {
  int ranks = 0;
  double size_bytes = 0;
  OverlapMeasure measure;
};

// Among `points`, those of `curve` (a curve key, nranks 0) measured beside a load.
std::optional<MeasuredOverlap> measured_overlap(std::span<const PointResult> points,
                                                const PointKey& curve, double size_bytes);

// The step at one size: `step` itself, or with --overlap measured, `measured`'s share and its
// interval (NaN where the curve has none: its efficiency unknown).
StepShape step_at(const StepShape& step, const std::optional<MeasuredOverlap>& measured);

}  // namespace collbench
