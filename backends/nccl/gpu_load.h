#pragma once
// The GPU's overlap load (`run --overlap-load memory|gemm`): kernels on a stream of their own,
// beside the communicator's, timed by events there, as a training step's backward kernels run
// beside its gradients' allreduce.
#include <memory>

#include "backends/overlap_load.h"

namespace collbench::nccl {

std::unique_ptr<OverlapLoad> make_gpu_load(LoadKind kind);

}  // namespace collbench::nccl
