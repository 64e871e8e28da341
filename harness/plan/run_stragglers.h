#pragma once
// A run's points as evidence of stragglers (harness/stats/stragglers.h). Only latency points
// started in windows take part: their ends and starts all read rank 0's clock. A rank started by
// a barrier times itself from its own release, so its time and its peers' do not compare (the
// rank released first waits for the others inside its timing), and a bandwidth sample is a
// loop's average. A point without kept samples (--keep-samples summary) has nothing to say.
#include <map>
#include <string>
#include <vector>

#include "harness/plan/point.h"
#include "harness/stats/stragglers.h"
#include "topo/rank_topology.h"

namespace collbench {

class RunStragglers {
 public:
  explicit RunStragglers(const std::vector<RankTopology>& topology);

  void add(const PointResult& point);
  StragglerRecord record() const { return search_.record(); }

 private:
  std::map<int, std::string> host_of_rank_;
  StragglerSearch search_;
};

}  // namespace collbench
