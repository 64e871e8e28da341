#pragma once
// A run judged against its links as text and JSON: per point the time the fastest textbook
// algorithm would take on the slowest link the point crosses, and the measured time over it; per
// curve that ratio at its smallest and largest size and its median.
#include <ostream>
#include <span>

#include <nlohmann/json.hpp>

#include "harness/links/link_bounds.h"
#include "harness/plan/point.h"

namespace collbench {

void print_link_bounds(std::ostream& out, const LinkBoundRecord& record,
                       std::span<const PointResult> points);
nlohmann::ordered_json link_bounds_json(const LinkBoundRecord& record,
                                        std::span<const PointResult> points);

}  // namespace collbench
