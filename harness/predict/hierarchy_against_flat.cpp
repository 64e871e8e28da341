#include "harness/predict/hierarchy_against_flat.h"

#include <algorithm>
#include <map>

#include "harness/fit/curve_fits.h"

namespace collbench {

std::optional<std::size_t> HierarchyAgainstFlat::faster_from_bytes() const {
  std::optional<std::size_t> from;
  for (auto size = sizes.rbegin(); size != sizes.rend() && size->faster; ++size)
    from = size->size_bytes;
  return from;
}

std::vector<HierarchyAgainstFlat> hierarchy_against_flat(std::span<const PointResult> points) {
  // The flat allreduce's points by curve and size, the first of a size measured twice.
  std::map<PointKey, std::map<std::size_t, const PointResult*>> flat_points;
  for (const PointResult& point : points)
    if (point.key.collective == CollectiveKind::allreduce)
      flat_points[curve_key(point.key)].emplace(point.key.size_bytes, &point);
  std::vector<HierarchyAgainstFlat> comparisons;
  for (const PointResult& hierarchical : points) {
    if (hierarchical.key.collective != CollectiveKind::allreduce_hier) continue;
    PointKey curve = curve_key(hierarchical.key);
    curve.collective = CollectiveKind::allreduce;
    const auto flat_curve = flat_points.find(curve);
    if (flat_curve == flat_points.end()) continue;
    // The hierarchy's count is a multiple of the rank count: its size was rounded down from the
    // flat one's by less than one element a rank.
    const std::size_t rounding = size_of(curve.datatype) * static_cast<std::size_t>(curve.nranks);
    const auto flat_size = flat_curve->second.lower_bound(hierarchical.key.size_bytes);
    if (flat_size == flat_curve->second.end() ||
        flat_size->first >= hierarchical.key.size_bytes + rounding)
      continue;
    const PointResult* flat = flat_size->second;
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
