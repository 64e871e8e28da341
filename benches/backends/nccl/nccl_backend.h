#pragma once
#include <map>
#include <memory>
#include <string>

#include "benches/backends/communicator.h"

namespace collbench {

struct NcclOptions {
  bool cuda_graphs = false;  // -G: batches are captured and replayed as CUDA graphs
  // -R: buffers from ncclMemAlloc (cuMem, as nccl-tests allocates) when registered, else
  // cudaMalloc.
  BufferRegistration buffer_registration = BufferRegistration::none;
};

// Throws BackendUnavailable when this host cannot run it.
std::unique_ptr<Backend> make_nccl_backend(const NcclOptions& options);

// Whether this host has a GPU NCCL can use (the default backend is nccl there).
bool nccl_usable();

std::map<std::string, std::string> nccl_local_launch_environment(int nranks, bool virtual_nodes);

}  // namespace collbench
