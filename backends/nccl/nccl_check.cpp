#include "nccl_check.h"

#include <string>

#include <fmt/format.h>

#include "backends/communicator.h"

namespace collbench::nccl {

void check(ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return;
  const char* detail = ncclGetLastError(nullptr);
  throw CommunicationFault(fmt::format("{}: {}{}{}", what, ncclGetErrorString(result),
                                       detail && *detail ? ": " : "", detail ? detail : ""));
}

void check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  throw CommunicationFault(fmt::format("{}: {}", what, cudaGetErrorString(result)));
}

ncclDataType_t datatype_of(DataType type) {
  switch (type) {
    case DataType::int8: return ncclInt8;
    case DataType::uint8: return ncclUint8;
    case DataType::int32: return ncclInt32;
    case DataType::uint32: return ncclUint32;
    case DataType::int64: return ncclInt64;
    case DataType::uint64: return ncclUint64;
    case DataType::float16: return ncclFloat16;
    case DataType::float32: return ncclFloat32;
    case DataType::float64: return ncclFloat64;
    case DataType::bfloat16: return ncclBfloat16;
    case DataType::float8_e4m3: return ncclFloat8e4m3;
    case DataType::float8_e5m2: return ncclFloat8e5m2;
  }
  return ncclFloat32;
}

ncclRedOp_t op_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::avg: return ncclAvg;
  }
  return ncclSum;
}

}  // namespace collbench::nccl
