#pragma once
#include <memory>

#include "backends/communicator.h"

namespace collbench {

// Initialises MPI on construction and finalises it on destruction.
std::unique_ptr<Backend> make_mpi_backend();

// MPI_Finalize, where MPI was initialised and not yet finalised.
void finalize_mpi_if_started();

}  // namespace collbench
