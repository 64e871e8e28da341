#pragma once
// A Comparison (compare_files.h) for people and for machines: the table `collbench compare`
// prints, its JSON, and one VerdictRecord per point and fit for the JUnit and Prometheus files.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare_files.h"
#include "harness/plan/point_identity.h"
#include "harness/report/verdict_files.h"

namespace collbench {

void print_table(std::ostream& out, const Comparison& comparison);
nlohmann::ordered_json comparison_json(const Comparison& comparison);
std::vector<VerdictRecord> verdict_records(const Comparison& comparison);

}  // namespace collbench
