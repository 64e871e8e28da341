#include "mpi_types.h"

#include <stdexcept>
#include <string>

namespace collbench::mpi {

MPI_Datatype datatype_of(DataType type) {
  switch (type) {
    case DataType::int8: return MPI_INT8_T;
    case DataType::uint8: return MPI_UINT8_T;
    case DataType::int32: return MPI_INT32_T;
    case DataType::uint32: return MPI_UINT32_T;
    case DataType::int64: return MPI_INT64_T;
    case DataType::uint64: return MPI_UINT64_T;
    case DataType::float32: return MPI_FLOAT;
    case DataType::float64: return MPI_DOUBLE;
    default: break;
  }
  throw std::invalid_argument(std::string("MPI has no ") + std::string(name(type)));
}

MPI_Op op_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::avg: break;
  }
  throw std::invalid_argument("MPI has no avg reduction");
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, length));
}

}  // namespace collbench::mpi
