#include "harness/report/convergence_mark.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace collbench {
namespace {

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  const double value = fraction * 100;
  return value < 10 ? fmt::format("{:.1f}%", value) : fmt::format("{:.0f}%", value);
}

}  // namespace

std::string convergence_mark(const PointResult& point) {
  return convergence_mark(std::span(&point, 1));
}

std::string convergence_mark(std::span<const PointResult> points) {
  double widest = 0;
  bool all_converged = true;
  for (const auto& point : points) {
    widest = std::max(widest, relative_ci_halfwidth(point.summary));
    all_converged = all_converged && converged(point);
  }
  return percent(widest) + (all_converged ? "" : "!");
}

}  // namespace collbench
