#pragma once
// A sheriff's next step after an alert: the command that runs the level's launch and tonight's as
// alternating fresh launches on one allocation (ci/interleave), judged pair by pair, so that the
// change is seen within one host state and not across nights. Built from what the two files
// recorded: each run's command line (without its --out, which ci/interleave adds), the
// environment variables that differ between them, and the builds when they differ.
#include <string>

#include "harness/store/result_file.h"

namespace collbench {

// "ci/interleave --out interleave/ --a 'mpirun -np 2 collbench run ...' --b 'NCCL_ALGO=Ring
// mpirun -np 2 collbench run ...'", and when the builds differ, what tells them apart.
std::string confirm_command(const Provenance& level, const Provenance& tonight);

}  // namespace collbench
