#pragma once
// One point as named fields, units in the names: the single definition behind CSV, JSON and
// JSON Lines output. The key's fields (plan/point_identity.h) and what the table shows first
// (wrong: the check that found more), then every /points column not named yet, as the file
// stores it (store/point_record.h), so that a column added there is printed too.
#include <nlohmann/json.hpp>

#include "harness/plan/point.h"

namespace collbench {

nlohmann::ordered_json point_fields(const PointResult& point);

}  // namespace collbench
