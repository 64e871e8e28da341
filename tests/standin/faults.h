#pragma once
// What the environment asks of the stand-in beyond correct collectives: a cost per call, and
// faults on one rank (RANK is the rank in the first communicator the process creates), at its
// first collective of floats (what a sweep of the default type measures; the control plane
// moves bytes, int64 sums and double maxima) of NCCL function FUNCTION (AllReduce, AllGather,
// ReduceScatter): a sweep measures one collective's curve after another, and writes a curve's
// points once it is done, so hanging AllGather keeps the AllReduce points.
//
//   COLLBENCH_STANDIN_LATENCY_US=5       each collective takes at least this ...
//   COLLBENCH_STANDIN_GBPS=20            ... plus its bytes at this rate
//   COLLBENCH_STANDIN_CONNECT_MS=20      the first use of an algorithm and protocol on a
//                                        communicator, under NCCL's runtime connect, takes this
//   COLLBENCH_STANDIN_DELAY_US=RANK:US   RANK finishes every collective US late (a straggler)
//   COLLBENCH_STANDIN_HANG=RANK:FUNCTION[:P]  that collective (on a communicator of P ranks,
//                                        when given) never completes
//   COLLBENCH_STANDIN_ASYNC_ERROR=RANK:FUNCTION[:P]  it fails instead: the
//                                        communicator's ncclCommGetAsyncError answers
//                                        ncclRemoteError, and the collective hangs
//   COLLBENCH_STANDIN_INIT_HANG=RANK[:N] RANK never joins its Nth communicator (1, the
//                                        default: its first, ncclCommInitRank's; later ones
//                                        ncclCommSplit's): the others wait there
//   COLLBENCH_STANDIN_CORRUPT=RANK:TYPE  RANK's results of every collective on NCCL type TYPE
//                                        (its number, ncclDataType_t) have one byte flipped
#include <nccl.h>

#include <cstddef>

#include "communicator.h"

namespace standin {

enum class Fault { none, hang, async_error };

// Once, at the process's first communicator: its rank there, and the settings above read.
void set_process_rank(int rank);
// Whether this process, joining a communicator as `rank` there, is to hang (INIT_HANG); called
// once for each communicator it joins, in order.
bool hangs_joining(int rank);
// The fault due at this collective of `type` on a communicator of `nranks`; one a process at
// most.
Fault fault_now(CollectiveKind kind, ncclDataType_t type, int nranks);
double delay_seconds();
double cost_seconds(std::size_t bytes);
double connect_seconds();
bool corrupts(ncclDataType_t type);

}  // namespace standin
