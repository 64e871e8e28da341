#include "harness/report/overlap_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/fit/curve_fits.h"
#include "harness/plan/point_identity.h"
#include "harness/plan/sizes.h"

namespace collbench {

std::vector<std::string> overlap_lines(std::span<const PointResult> points, LoadKind load) {
  std::vector<PointKey> curves;
  std::vector<std::vector<std::string>> parts;
  for (const PointResult& point : points) {
    if (!point.overlap.measured()) continue;
    const PointKey curve = curve_key(point.key);
    auto found = std::ranges::find(curves, curve);
    if (found == curves.end()) {
      curves.push_back(curve);
      parts.emplace_back();
      found = curves.end() - 1;
    }
    const OverlapMeasure& measured = point.overlap;
    // An interval from 0% or less to 100% or more cannot tell a hidden collective from an
    // exposed one (a small one lost in the load's spread): its middle would read as a finding.
    const bool resolved = measured.hidden_ci.low > 0 || measured.hidden_ci.high < 1;
    const std::string share =
        resolved ? fmt::format("{:.0f}%", 100 * measured.hidden) : std::string("unresolved");
    parts[static_cast<std::size_t>(found - curves.begin())].push_back(fmt::format(
        "{} [{:.0f}, {:.0f}] at {} (collective x{:.2f}, load x{:.2f})", share,
        100 * measured.hidden_ci.low, 100 * measured.hidden_ci.high,
        format_size(point.key.size_bytes), measured.collective_slowdown, measured.load_slowdown));
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < curves.size(); ++i)
    lines.push_back(fmt::format("# overlap beside a {} load, {}: hidden {}", name(load),
                                curve_text(curves[i]), fmt::join(parts[i], ", ")));
  return lines;
}

}  // namespace collbench
