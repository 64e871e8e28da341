#pragma once
// Reporters turn measured points into text; they never measure. `run` feeds them as rows
// finish, `report` feeds them from a result file, so both print the same thing.
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/fit/curve_fits.h"
#include "harness/links/link_bounds.h"
#include "harness/plan/point.h"
#include "harness/predict/hierarchy_against_flat.h"
#include "harness/report/ordered_json.h"
#include "harness/stats/stragglers.h"
#include "topo/rank_topology.h"

namespace collbench {

struct RunDescription {
  std::string collbench_version;
  std::string backend;
  std::string backend_version;
  int nranks = 0;
  int nodes = 0;
  std::vector<std::string> hosts;
  std::string start_utc;
  std::string command_line;
  PlausibilityBound plausibility;  // none where the run recorded none
  // What nccl-tests' JSON holds besides (nccl_tests_json.h): each rank's host and GPU, the
  // recorded environment, the run's settings as JSON and the NCCL library's version ("2.28.9",
  // empty off NCCL).
  std::vector<RankTopology> ranks;
  std::map<std::string, std::string> environment;
  std::string settings_json;
  std::string nccl_version;
};

// {"copy": [{"size_bytes", "copy_GBps"}...], "empty_call_us", "margin"}; the copies empty and
// the call null where the run recorded none.
void to_json(nlohmann::ordered_json& json, const PlausibilityBound& bound);
COLLBENCH_ORDERED_JSON(RunDescription, collbench_version, backend, backend_version, nranks, nodes,
                       hosts, start_utc, command_line, plausibility)

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunDescription& run) { (void)run; }
  // The points of one row: one collective, datatype, op, placement, rank count and size, in
  // every mode and in-place variant measured.
  virtual void row(std::span<const PointResult> points) = 0;
  // The sections that follow the points, each called where the file holds it, after the last
  // row and before end(). Every format implements each or declines it in so many words.
  virtual void models(const ModelReport& report) = 0;
  virtual void hierarchy(std::span<const HierarchyAgainstFlat> comparisons) = 0;
  // `binding_warning`: the run's (provenance), which explains stragglers where ranks shared cores.
  virtual void stragglers(const StragglerRecord& record, std::string_view binding_warning) = 0;
  virtual void link_bounds(const LinkBoundRecord& record, std::span<const PointResult> points) = 0;
  virtual void end() {}
};

// table, markdown, csv, json, jsonl or nccl-tests-json; throws UsageError for another name.
std::unique_ptr<Reporter> make_reporter(std::string_view format, std::ostream& out);
std::vector<std::string_view> reporter_formats();

// The row's point of `mode` and in-place variant; null where the row has none.
const PointResult* find_point(std::span<const PointResult> row, bool in_place, Mode mode);
// What stands in a row for nccl-tests' figures: the bandwidth mode's point, which times what
// nccl-tests times, else the latency mode's where it alone ran.
const PointResult* headline_point(std::span<const PointResult> row, bool in_place);

// True when two points belong to the same row.
bool same_row(const PointKey& a, const PointKey& b);

}  // namespace collbench
