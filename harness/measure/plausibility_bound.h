#pragma once
// Measures the run's plausibility bound (harness/plan/plausibility.h) once, before the sweep, in
// the run's own buffers and with its backend's own copy, call and timer.
#include <span>

#include "backends/communicator.h"
#include "harness/measure/copy_rates.h"
#include "harness/measure/row_runner.h"
#include "harness/plan/plausibility.h"

namespace collbench {

// Collective over `world`: every rank measures at once, as every rank moves data at once in a
// collective, and every rank gets the bound of the fastest (its copy and its empty call).
// `copies`: this rank's copies, timed with every rank's at once (the start's host-state probe).
PlausibilityBound measure_plausibility_bound(Communicator& world, RunBuffers& buffers,
                                             std::span<const CopySamples> copies);

}  // namespace collbench
