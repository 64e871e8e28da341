#pragma once
// A number for JSON output: null where it is not finite (JSON has no NaN or infinity).
#include <cmath>

#include <nlohmann/json.hpp>

namespace collbench {

inline nlohmann::ordered_json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

}  // namespace collbench
