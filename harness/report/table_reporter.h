#pragma once
// nccl-tests' table, so scripts that scrape it keep working: size count type redop root, then
// time algbw busbw #wrong per in-place variant, then the latency-mode median and p99, and
// nccl-tests' footer per collective.
#include <optional>
#include <ostream>

#include "harness/report/reporter.h"

namespace collbench {

class TableReporter final : public Reporter {
 public:
  explicit TableReporter(std::ostream& out) : out_(out) {}
  void begin(const RunDescription& run) override;
  void row(std::span<const PointResult> points) override;
  void end() override;

 private:
  void open_section(const PointKey& key, std::span<const PointResult> points);
  void close_section();

  std::ostream& out_;
  std::optional<PointKey> section_;
  bool with_in_place_ = false;
  double busbw_sum_ = 0;
  int busbw_count_ = 0;
  long long wrong_ = 0;
  bool checked_ = false;
};

}  // namespace collbench
