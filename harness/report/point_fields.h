#pragma once
// One point as named fields, units in the names: the single definition behind CSV, JSON and
// JSON Lines output.
#include <nlohmann/json.hpp>

#include "harness/plan/point.h"

namespace collbench {

nlohmann::ordered_json point_fields(const PointResult& point);

}  // namespace collbench
