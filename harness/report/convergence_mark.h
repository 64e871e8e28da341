#pragma once
// How every output marks a point's precision: the half-width of its median's 95% interval
// relative to the median ("0.4%"), followed by "!" when the point stopped short of what it was
// sampled for (harness/plan/point.h, converged()); "-!" when too few samples give no interval.
#include <span>
#include <string>

#include "harness/plan/point.h"

namespace collbench {

std::string convergence_mark(const PointResult& point);
// A table row's points in one mark: the widest interval, "!" when any point stopped short.
std::string convergence_mark(std::span<const PointResult> points);

}  // namespace collbench
