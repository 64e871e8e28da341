#include "reporter.h"

#include <fmt/format.h>

#include "harness/errors.h"
#include "harness/report/json_number.h"
#include "harness/report/nccl_tests_json.h"
#include "harness/report/structured_reporters.h"
#include "harness/report/table_reporter.h"

namespace collbench {

void to_json(nlohmann::ordered_json& json, const PlausibilityBound& bound) {
  nlohmann::ordered_json copies = nlohmann::ordered_json::array();
  for (const CopyRate& rate : bound.copy)
    copies.push_back({{"size_bytes", rate.bytes}, {"copy_GBps", rate.gbps}});
  json = {{"copy", copies},
          {"empty_call_us", finite_or_null(bound.empty_call_s * 1e6)},
          {"margin", kPlausibilityMargin}};
}

std::vector<std::string_view> reporter_formats() {
  return {"table", "markdown", "csv", "json", "jsonl", "nccl-tests-json"};
}

std::unique_ptr<Reporter> make_reporter(std::string_view format, std::ostream& out) {
  if (format == "table") return std::make_unique<TableReporter>(out);
  if (format == "markdown") return std::make_unique<MarkdownReporter>(out);
  if (format == "csv") return std::make_unique<CsvReporter>(out);
  if (format == "json") return std::make_unique<JsonReporter>(out);
  if (format == "jsonl") return std::make_unique<JsonLinesReporter>(out);
  if (format == "nccl-tests-json") return std::make_unique<NcclTestsJsonReporter>(out);
  throw UsageError(fmt::format("--format: unknown format '{}' (expected one of {})", format,
                               fmt::join(reporter_formats(), ", ")));
}

const PointResult* find_point(std::span<const PointResult> row, bool in_place, Mode mode) {
  for (const auto& point : row)
    if (point.key.in_place == in_place && point.key.mode == mode) return &point;
  return nullptr;
}

const PointResult* headline_point(std::span<const PointResult> row, bool in_place) {
  const PointResult* point = find_point(row, in_place, Mode::bandwidth);
  return point ? point : find_point(row, in_place, Mode::latency);
}

bool same_row(const PointKey& a, const PointKey& b) {
  // A row holds every mode and in-place variant of one key, and so each mode's sync.
  const auto row_key = [](PointKey key) {
    key.mode = Mode::bandwidth;
    key.sync = sync_of(key.mode, key.sync);
    key.in_place = false;
    return key;
  };
  return row_key(a) == row_key(b);
}

}  // namespace collbench
