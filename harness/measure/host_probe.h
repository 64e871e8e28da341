#pragma once
// Takes the host-state probe (harness/plan/host_probe.h) at one moment of a run.
#include <vector>

#include "backends/communicator.h"
#include "harness/measure/copy_rates.h"
#include "harness/measure/row_runner.h"
#include "harness/plan/host_probe.h"

namespace collbench {

// Collective over `world`: every rank copies at once, each size's rate is the median of a rank's
// samples, and the slowest rank's is kept (a collective waits for it). Appends to `probe` the
// same readings on every rank; returns this rank's samples.
std::vector<CopySamples> take_host_probe(Communicator& world, RunBuffers& buffers,
                                         ProbeMoment moment, HostProbe& probe);

}  // namespace collbench
