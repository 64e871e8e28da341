#pragma once
// A Comparison (compare_files.h) for people and for machines: the table `collbench compare`
// prints, its JSON, and one VerdictRecord per point and fit for the JUnit and Prometheus files.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare_files.h"
#include "harness/report/verdict_files.h"

namespace collbench {

// A point's and a curve's words, its labels for the verdict files, and its key as JSON: what
// every verdict on points (compare, trend) names it by.
std::string curve_text(const PointKey& key);  // "allreduce float sum world 2 ranks latency"
std::string point_text(const PointKey& key);  // the same and the size: "... latency 64 B"
std::vector<std::pair<std::string, std::string>> key_labels(const PointKey& key);
nlohmann::ordered_json key_json(const PointKey& key, bool with_size);

void print_table(std::ostream& out, const Comparison& comparison);
nlohmann::ordered_json comparison_json(const Comparison& comparison);
std::vector<VerdictRecord> verdict_records(const Comparison& comparison);

}  // namespace collbench
