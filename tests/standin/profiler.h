#pragma once
// NCCL's profiler plugin interface (ext-profiler, version 5) as NCCL 2.28 drives it: loaded once
// from NCCL_PROFILER_PLUGIN (STATIC_PLUGIN: the executable's own ncclProfiler_v5), told of each
// communicator, and of each collective with the algorithm and protocol chosen for it.
#include "algorithms.h"
#include "communicator.h"

namespace standin {

void profile_communicator(ncclComm& comm);
void profile_collective(ncclComm& comm, const Collective& c, const Choice& choice, const void* send,
                        void* receive);
void profile_end(ncclComm& comm);

}  // namespace standin
