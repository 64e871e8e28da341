#pragma once
// What the environment asks of the stand-in beyond correct collectives: a cost per call, and
// faults on one rank (RANK is the rank in the first communicator the process creates; MS counts
// milliseconds from that communicator's creation, since the number of collectives a point takes
// grows with the machine's speed).
//
//   COLLBENCH_STANDIN_LATENCY_US=5       each collective takes at least this ...
//   COLLBENCH_STANDIN_GBPS=20            ... plus its bytes at this rate
//   COLLBENCH_STANDIN_CONNECT_MS=20      the first use of an algorithm and protocol on a
//                                        communicator, under NCCL's runtime connect, takes this
//   COLLBENCH_STANDIN_DELAY_US=RANK:US   RANK finishes every collective US late (a straggler)
//   COLLBENCH_STANDIN_HANG=RANK:MS[:P]   RANK's first collective after MS (on a communicator
//                                        of P ranks, when given) never completes
//   COLLBENCH_STANDIN_ASYNC_ERROR=RANK:MS[:P]  the same collective fails instead: the
//                                        communicator's ncclCommGetAsyncError answers
//                                        ncclRemoteError, and the collective hangs
//   COLLBENCH_STANDIN_CORRUPT=RANK:TYPE  RANK's results of every collective on NCCL type TYPE
//                                        (its number, ncclDataType_t) have one byte flipped
#include <nccl.h>

#include <cstddef>

namespace standin {

enum class Fault { none, hang, async_error };

void set_process_rank(int rank);
// The fault due now on a communicator of `nranks`, at most once a process.
Fault fault_now(int nranks);
double delay_seconds();
double cost_seconds(std::size_t bytes);
double connect_seconds();
bool corrupts(ncclDataType_t type);

}  // namespace standin
