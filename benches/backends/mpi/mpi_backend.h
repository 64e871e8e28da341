#pragma once
#include <memory>

#include "benches/backends/communicator.h"

namespace collbench {

// Initialises MPI on construction and finalises it on destruction.
std::unique_ptr<Backend> make_mpi_backend();

}  // namespace collbench
