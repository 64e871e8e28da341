#pragma once
// The hierarchical allreduce against the flat one measured beside it (same run or same files,
// same datatype, op, placement, rank count, mode and variant): per size, the ratio of their
// medians and whether their intervals part; and the size from which the composed one is faster
// at every size measured.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "harness/plan/point.h"

namespace collbench {

struct SizeAgainstFlat {
  std::size_t size_bytes = 0;
  double flat_s = 0;
  double hierarchical_s = 0;
  double ratio() const { return hierarchical_s / flat_s; }  // below 1: the hierarchy is faster
  bool faster = false;  // the hierarchy's interval lies wholly below the flat one's
  bool slower = false;  // wholly above
};

struct HierarchyAgainstFlat {
  PointKey flat_curve;  // the flat allreduce's curve key
  std::vector<SizeAgainstFlat> sizes;  // ascending, where both were measured
  // The smallest size from which the hierarchy is faster at every size measured; none when it
  // is not faster at the largest.
  std::optional<std::size_t> faster_from_bytes() const;
};

std::vector<HierarchyAgainstFlat> hierarchy_against_flat(std::span<const PointResult> points);

}  // namespace collbench
