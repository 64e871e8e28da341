#pragma once
#include <mpi.h>

#include "collectives/datatype.h"

namespace collbench::mpi {

MPI_Datatype datatype_of(DataType type);
MPI_Op op_of(ReduceOp op);
// Turns an MPI error code into std::runtime_error with MPI's own text.
void check(int rc, const char* what);

}  // namespace collbench::mpi
