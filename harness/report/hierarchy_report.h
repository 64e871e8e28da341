#pragma once
// The hierarchical allreduce against the flat one, in words: one line per curve pair, under
// `run`'s table, `report`'s and `predict`'s.
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/predict/hierarchy_against_flat.h"

namespace collbench {

std::vector<std::string> hierarchy_lines(std::span<const HierarchyAgainstFlat> comparisons);
nlohmann::ordered_json hierarchy_json(std::span<const HierarchyAgainstFlat> comparisons);

}  // namespace collbench
