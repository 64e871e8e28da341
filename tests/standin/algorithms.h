#pragma once
// NCCL's algorithm and protocol choice as the stand-in plays it: NCCL_ALGO and NCCL_PROTO (a
// list, or "^" and a list to leave out) read when a communicator is created; each collective
// takes the first pinned algorithm and protocol that can run it, by NCCL 2.28.9's rules (its
// device function table: Tree only reduces whole buffers, PAT, NVLS and CollNet run Simple
// only; PAT has no pre-multiplied sum, avg of floats), on what this machine has: no NVSwitch
// (NVLS) and no CollNet; PAT where every rank is a node of its own. Unpinned: Ring.
#include <nccl.h>

#include <string>

#include "communicator.h"

namespace standin {

struct Choice {
  std::string algorithm;  // empty: none can run it ("no algorithm/protocol available")
  std::string protocol;
};

// Unpinned, the protocol goes by size as NCCL's tuning does: LL below 64 KiB, Simple above.
// NCCL_ALGO and NCCL_PROTO into `comm`, as NCCL reads them when a communicator is created.
void read_pins(ncclComm& comm);

Choice choose(const ncclComm& comm, CollectiveKind kind, ncclRedOp_t op,
              std::size_t bytes);

// Whether NCCL 2.28.9 has a symmetric kernel for this collective on `comm`, whose buffers lie in
// symmetric windows (registration.h; sym_kernels.cc: allgather of any type; allreduce and
// reduce-scatter sum of floating types but double; one node; under 64 GiB on the bus). NCCL
// takes it before NCCL_ALGO and NCCL_PROTO are looked at.
bool symmetric_kernel_runs(const ncclComm& comm, CollectiveKind kind, ncclDataType_t type,
                           ncclRedOp_t op, std::size_t bytes);

}  // namespace standin
