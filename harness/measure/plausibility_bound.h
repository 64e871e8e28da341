#pragma once
// Measures the run's plausibility bound (harness/plan/plausibility.h) once, before the sweep, in
// the run's own buffers and with its backend's own copy, call and timer.
#include "backends/communicator.h"
#include "harness/measure/row_runner.h"
#include "harness/plan/plausibility.h"

namespace collbench {

// Collective over `world`: every rank measures at once, as every rank moves data at once in a
// collective, and every rank gets the bound of the fastest (its copy and its empty call).
PlausibilityBound measure_plausibility_bound(Communicator& world, RunBuffers& buffers);

}  // namespace collbench
