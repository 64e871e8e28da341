#pragma once
// A Trend (trend_files.h) for people and for machines: the table `collbench trend` prints, its
// JSON (which plots/ draws the trend figure from), and one VerdictRecord per point.
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/verdict_files.h"
#include "harness/trend/trend_files.h"

namespace collbench {

void print_trend_table(std::ostream& out, const Trend& trend);
nlohmann::ordered_json trend_json(const Trend& trend);
std::vector<VerdictRecord> trend_verdict_records(const Trend& trend);

}  // namespace collbench
