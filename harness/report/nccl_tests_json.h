#pragma once
// nccl-tests' JSON (-J, schema 3, as nccl-tests 2.19.6 writes it in src/util.cu), so that what
// reads nccl-tests' files reads collbench's: tools/analyze_perf_json.py and a team's scrapers.
// A row is a result; its out-of-place and in-place figures are the row's headline points (the
// bandwidth mode's, else the latency mode's, as the table prints), and, where the file kept
// samples, its per-iteration figures are the kept samples: `times_us` the slowest rank's time of
// each, `per_process_max_times_us` each rank's. docs/reading-results.md says where a field
// differs from nccl-tests' and why.
#include <nlohmann/json.hpp>

#include "harness/report/structured_reporters.h"

namespace collbench {

class NcclTestsJsonReporter final : public StreamReporter {
 public:
  using StreamReporter::StreamReporter;
  void begin(const RunDescription& run) override;
  void row(std::span<const PointResult> points) override;
  // nccl-tests' schema has no place for collbench's analyses: declined.
  void models(const ModelReport&) override {}
  void hierarchy(std::span<const HierarchyAgainstFlat>) override {}
  void stragglers(const StragglerRecord&, std::string_view) override {}
  void link_bounds(const LinkBoundRecord&, std::span<const PointResult>) override {}
  void end() override;

 private:
  nlohmann::ordered_json document_;
  double busbw_sum_ = 0;
  int busbw_count_ = 0;
  std::int64_t wrong_ = 0;
};

}  // namespace collbench
