#pragma once
// What the reporters print of a run, from what its file records: `run` and `report` describe a
// run alike.
#include <vector>

#include "harness/report/reporter.h"
#include "harness/store/result_file.h"

namespace collbench {

RunDescription describe_run(const Provenance& provenance, const std::vector<RankTopology>& ranks);

}  // namespace collbench
