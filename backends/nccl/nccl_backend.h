#pragma once
#include <map>
#include <memory>
#include <string>

#include "backends/backend_options.h"
#include "backends/communicator.h"

namespace collbench {

// Throws BackendUnavailable when this host cannot run it.
std::unique_ptr<Backend> make_nccl_backend(const BackendOptions& options);

// Whether this host has a GPU NCCL can use (the default backend is nccl there).
bool nccl_usable();

std::map<std::string, std::string> nccl_local_launch_environment(int nranks, bool virtual_nodes);

}  // namespace collbench
