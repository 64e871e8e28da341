#pragma once
// What the environment asks of the stand-in beyond correct collectives: a cost per call, and
// faults on one rank (RANK is the rank in the first communicator the process creates; N
// counts that process's collectives from 1, the control plane's included).
//
//   COLLBENCH_STANDIN_LATENCY_US=5       each collective takes at least this ...
//   COLLBENCH_STANDIN_GBPS=20            ... plus its bytes at this rate
//   COLLBENCH_STANDIN_DELAY_US=RANK:US   RANK arrives US later at every collective (a straggler)
//   COLLBENCH_STANDIN_HANG=RANK:N        RANK's N-th collective never completes
//   COLLBENCH_STANDIN_ASYNC_ERROR=RANK:N RANK's N-th collective fails: ncclCommGetAsyncError
//                                        answers ncclRemoteError, and the collective hangs
//   COLLBENCH_STANDIN_CORRUPT=RANK:TYPE  RANK's results of every collective on NCCL type TYPE
//                                        (its number, ncclDataType_t) have one byte flipped
#include <nccl.h>

#include <cstddef>

namespace standin {

enum class Fault { none, hang, async_error };

void set_process_rank(int rank);
Fault fault_for(long call_number);
double delay_seconds();
double cost_seconds(std::size_t bytes);
bool corrupts(ncclDataType_t type);

}  // namespace standin
