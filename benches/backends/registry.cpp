#include "registry.h"

#include <stdexcept>

#include "benches/backends/mpi/mpi_backend.h"

namespace collbench {

std::vector<std::string> built_backends() { return {"mpi"}; }

std::string default_backend() { return "mpi"; }

std::unique_ptr<Backend> start_backend(std::string_view name) {
  if (name == "mpi") return make_mpi_backend();
  throw std::invalid_argument("backend '" + std::string(name) + "' is not built into collbench");
}

}  // namespace collbench
