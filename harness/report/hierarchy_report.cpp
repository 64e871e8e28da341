#include "harness/report/hierarchy_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/plan/point_identity.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

std::string verdict_text(const HierarchyAgainstFlat& comparison) {
  const SizeAgainstFlat& largest = comparison.sizes.back();
  const auto from = comparison.faster_from_bytes();
  if (from)
    return fmt::format("faster from {} up ({:.2f}x the flat time at {})", format_size(*from),
                       largest.ratio(), format_size(largest.size_bytes));
  std::vector<std::string> faster;
  for (const SizeAgainstFlat& size : comparison.sizes)
    if (size.faster) faster.push_back(format_size(size.size_bytes));
  return fmt::format("not faster at the largest size ({:.2f}x the flat time at {}{}){}",
                     largest.ratio(), format_size(largest.size_bytes),
                     largest.slower ? ", slower beyond the intervals" : ", within the intervals",
                     faster.empty() ? "" : fmt::format("; faster at {}", fmt::join(faster, ", ")));
}

}  // namespace

std::vector<std::string> hierarchy_lines(std::span<const HierarchyAgainstFlat> comparisons) {
  std::vector<std::string> lines;
  for (const HierarchyAgainstFlat& comparison : comparisons) {
    const SizeAgainstFlat& smallest = comparison.sizes.front();
    lines.push_back(fmt::format("# allreduce_hier against {}: {}; {:.2f}x at the smallest, {}",
                                curve_text(comparison.flat_curve), verdict_text(comparison),
                                smallest.ratio(), format_size(smallest.size_bytes)));
  }
  return lines;
}

nlohmann::ordered_json hierarchy_json(std::span<const HierarchyAgainstFlat> comparisons) {
  auto json = nlohmann::ordered_json::array();
  for (const HierarchyAgainstFlat& comparison : comparisons) {
    auto entry = key_json(comparison.flat_curve, false);
    const auto from = comparison.faster_from_bytes();
    entry["faster_from_bytes"] = from ? nlohmann::ordered_json(*from) : nullptr;
    entry["sizes"] = nlohmann::ordered_json::array();
    for (const SizeAgainstFlat& size : comparison.sizes)
      entry["sizes"].push_back({{"size_bytes", size.size_bytes},
                                {"flat_us", size.flat_s * 1e6},
                                {"hierarchical_us", size.hierarchical_s * 1e6},
                                {"ratio", size.ratio()},
                                {"faster", size.faster},
                                {"slower", size.slower}});
    json.push_back(std::move(entry));
  }
  return json;
}

}  // namespace collbench
