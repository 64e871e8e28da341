#pragma once
#include <string>
#include <vector>

#include "harness/cli/run_options.h"

namespace collbench {

// `collbench run`: measures the sweep on every rank; rank 0 prints and writes the file.
// Returns the exit code (docs/DESIGN.md): 0, 1 for a wrong result, 2 bad input, 3 a fault.
int run_command(const RunOptions& options, const std::vector<std::string>& argv);

}  // namespace collbench
