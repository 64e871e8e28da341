#include "harness/predict/hierarchy_against_flat.h"

#include <algorithm>

#include "harness/fit/curve_fits.h"

namespace collbench {

std::optional<std::size_t> HierarchyAgainstFlat::faster_from_bytes() const {
  std::optional<std::size_t> from;
  for (auto size = sizes.rbegin(); size != sizes.rend() && size->faster; ++size)
    from = size->size_bytes;
  return from;
}

std::vector<HierarchyAgainstFlat> hierarchy_against_flat(std::span<const PointResult> points) {
  std::vector<HierarchyAgainstFlat> comparisons;
  for (const PointResult& hierarchical : points) {
    if (hierarchical.key.collective != CollectiveKind::allreduce_hier) continue;
    PointKey curve = curve_key(hierarchical.key);
    curve.collective = CollectiveKind::allreduce;
    // The hierarchy's count is a multiple of the rank count: its size was rounded down from the
    // flat one's by less than one element a rank.
    const std::size_t rounding = size_of(curve.datatype) * static_cast<std::size_t>(curve.nranks);
    const auto flat = std::ranges::find_if(points, [&](const PointResult& point) {
      return curve_key(point.key) == curve && point.key.size_bytes >= hierarchical.key.size_bytes &&
             point.key.size_bytes < hierarchical.key.size_bytes + rounding;
    });
    if (flat == points.end()) continue;
    auto comparison = std::ranges::find(comparisons, curve, &HierarchyAgainstFlat::flat_curve);
    if (comparison == comparisons.end())
      comparison = comparisons.insert(comparisons.end(), {curve, {}});
    const Summary& f = flat->summary;
    const Summary& h = hierarchical.summary;
    comparison->sizes.push_back({.size_bytes = flat->key.size_bytes,
                                 .flat_s = f.median,
                                 .hierarchical_s = h.median,
                                 .faster = h.ci_high < f.ci_low,
                                 .slower = h.ci_low > f.ci_high});
  }
  for (HierarchyAgainstFlat& comparison : comparisons)
    std::ranges::sort(comparison.sizes, {}, &SizeAgainstFlat::size_bytes);
  return comparisons;
}

}  // namespace collbench
