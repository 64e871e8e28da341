#include "harness/plan/run_stragglers.h"

namespace collbench {

RunStragglers::RunStragglers(const std::vector<RankTopology>& topology) {
  for (const RankTopology& rank : topology) host_of_rank_[rank.rank] = rank.host;
}

void RunStragglers::add(const PointResult& point) {
  const RawSamples& samples = point.samples;
  if (point.key.mode != Mode::latency || point.key.sync != SampleStart::window ||
      samples.nranks < 2 || samples.sample_count() == 0)
    return;
  std::vector<std::string> hosts;
  for (int rank : samples.world_ranks) {
    const auto found = host_of_rank_.find(rank);
    hosts.push_back(found == host_of_rank_.end() ? std::string() : found->second);
  }
  search_.add(StragglerKind::finishes_last, samples.world_ranks, hosts, samples.per_rank_seconds,
              point.summary.median, point.clock_error_s);
  if (samples.start_lateness_seconds.size() == samples.per_rank_seconds.size())
    search_.add(StragglerKind::starts_late, samples.world_ranks, hosts,
                samples.start_lateness_seconds, point.summary.median, point.clock_error_s);
}

}  // namespace collbench
