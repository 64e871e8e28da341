#pragma once
// `run --overlap-load` in words: a footer line per curve measured beside the load.
#include <span>
#include <string>
#include <vector>

#include "backends/overlap_load.h"
#include "harness/plan/point.h"

namespace collbench {

// "# overlap beside a memory load, allreduce float sum world 2 ranks latency: hidden 83%
// [3, 138] at 1 KiB (collective x2.67, load x1.02), ..."; points without a measured overlap are
// left out, in the order given.
std::vector<std::string> overlap_lines(std::span<const PointResult> points, LoadKind load);

}  // namespace collbench
