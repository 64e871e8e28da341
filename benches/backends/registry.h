#pragma once
// The backends this build has, by name.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "benches/backends/communicator.h"

namespace collbench {

std::vector<std::string> built_backends();
// The backend used when --backend is not given: nccl where GPUs and NCCL are present, else mpi.
std::string default_backend();
// Starts the named backend (initialising its library); throws std::invalid_argument for a
// name this build does not have.
std::unique_ptr<Backend> start_backend(std::string_view name);

}  // namespace collbench
