#pragma once
// NCCL and CUDA result codes as exceptions, and collbench's types as NCCL's.
#include <cuda_runtime.h>
#include <nccl.h>

#include "collectives/datatype.h"

namespace collbench::nccl {

// Throw CommunicationFault naming the call and the library's own message.
void check(ncclResult_t result, const char* what);
void check(cudaError_t result, const char* what);

ncclDataType_t datatype_of(DataType type);
ncclRedOp_t op_of(ReduceOp op);

}  // namespace collbench::nccl
