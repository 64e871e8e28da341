#pragma once
// How a backend is to run its collectives, from the command line: what only some libraries do
// (NCCL) and the others refuse at the command line.
#include "backends/buffer_registration.h"

namespace collbench {

struct BackendOptions {
  bool cuda_graphs = false;  // -G: batches are captured and replayed as CUDA graphs
  // -R: buffers from ncclMemAlloc (cuMem, as nccl-tests allocates) when registered, else
  // cudaMalloc.
  BufferRegistration buffer_registration = BufferRegistration::none;
};

}  // namespace collbench
