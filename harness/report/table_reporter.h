#pragma once
// nccl-tests' table, so scripts that scrape it keep working: on every data row exactly its 13
// fields (size count type redop root, then time algbw busbw #wrong out of place and in place,
// N/A where in place was not measured), then collbench's own columns (the latency-mode median
// and p99, the precision: harness/report/convergence_mark.h); each mark of that last column
// explained on a comment line where its section first uses it; nccl-tests' footer per section,
// and at the end one summary line that names each section's average bus bandwidth.
#include <optional>
#include <set>
#include <ostream>
#include <string>
#include <vector>

#include "harness/report/convergence_mark.h"
#include "harness/report/reporter.h"

namespace collbench {

class TableReporter final : public Reporter {
 public:
  explicit TableReporter(std::ostream& out) : out_(out) {}
  void begin(const RunDescription& run) override;
  void row(std::span<const PointResult> points) override;
  void models(const ModelReport& report) override;
  void hierarchy(std::span<const HierarchyAgainstFlat> comparisons) override;
  void stragglers(const StragglerRecord& record, std::string_view binding_warning) override;
  void link_bounds(const LinkBoundRecord& record, std::span<const PointResult> points) override;
  void end() override;

 private:
  void open_section(const PointKey& key, std::span<const PointResult> points);
  void close_section();

  std::ostream& out_;
  PlausibilityBound bound_;  // the run's, for the reasons after implausible rows
  std::optional<PointKey> section_;
  std::vector<std::string> averages_;  // "allreduce/world/2 1.2345", one per section
  bool with_in_place_ = false;
  double busbw_sum_ = 0;
  int busbw_count_ = 0;
  long long wrong_ = 0;
  bool checked_ = false;
  std::set<Mark> explained_;  // in the current section
  bool step_explained_ = false;
  std::string sections_;  // the run's sections beside its points: printed after the table
};

}  // namespace collbench
