#pragma once
// Which of NCCL's algorithms and protocols can run a collective of a datatype and op, by NCCL
// 2.28.9's own rules (its device function table and enqueue.cc's checks): a pinned combination
// outside them makes NCCL fail the call ("no algorithm/protocol available", ncclInternalError)
// with the pin already unset, so the message does not name it. Whether the system has the
// hardware an algorithm needs (NVSwitch for NVLS, one rank per node for PAT) is the first
// call's to find out.
#include <string>

#include "backends/tuning.h"
#include "collectives/collective_kind.h"
#include "collectives/datatype.h"

namespace collbench::nccl {

// Empty when NCCL can run the collective under `tuning` (one algorithm and one protocol, or
// empty for NCCL's choice); else why not, in words. allreduce_hier runs on untuned
// communicators and is not asked about.
std::string why_ineligible(const Tuning& tuning, CollectiveKind kind, DataType type, ReduceOp op);

}  // namespace collbench::nccl
