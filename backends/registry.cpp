#include "registry.h"

#include <stdexcept>

#include "backends/mpi/mpi_backend.h"
#ifdef COLLBENCH_WITH_NCCL
#include "backends/nccl/nccl_backend.h"
#endif
#ifdef COLLBENCH_WITH_UCX
#include "backends/ucx/ucp_worker.h"
#include "backends/ucx/ucs_signals.h"
#endif

namespace collbench {

std::vector<std::string> built_backends() {
#ifdef COLLBENCH_WITH_NCCL
  return {"nccl", "mpi"};
#else
  return {"mpi"};
#endif
}

std::string default_backend() {
#ifdef COLLBENCH_WITH_NCCL
  if (nccl_usable()) return "nccl";
#endif
  return "mpi";
}

std::unique_ptr<Backend> start_backend(std::string_view name,
                                       [[maybe_unused]] const BackendOptions& options) {
  if (name == "mpi") return make_mpi_backend();
#ifdef COLLBENCH_WITH_NCCL
  if (name == "nccl")
    return make_nccl_backend(options);
#endif
  throw std::invalid_argument("backend '" + std::string(name) + "' is not built into collbench");
}

std::unique_ptr<PointToPoint> start_point_to_point([[maybe_unused]] MessageMemory memory) {
#ifdef COLLBENCH_WITH_UCX
  return std::make_unique<ucx::UcpWorker>(memory);
#else
  throw BackendUnavailable(
      "this collbench was built without UCX (install libucx-dev and configure with "
      "-DCOLLBENCH_WITH_UCX=ON)");
#endif
}

void end_failed_start() { finalize_mpi_if_started(); }

void give_back_library_crash_handlers() {
#ifdef COLLBENCH_WITH_UCX
  ucx::give_back_error_signals();
#endif
}

BackendCapabilities capabilities_of(std::string_view name) {
  if (name == "nccl")
    return {.cuda_graphs = true,
            .pinned_tuning = true,
            .buffer_registration = true,
            .starts_without_mpi = true};
  return {};
}

std::map<std::string, std::string> local_launch_environment(
    std::string_view name, [[maybe_unused]] int nranks, [[maybe_unused]] bool virtual_nodes) {
#ifdef COLLBENCH_WITH_NCCL
  if (name == "nccl") return nccl_local_launch_environment(nranks, virtual_nodes);
#endif
  throw std::invalid_argument("backend '" + std::string(name) + "' cannot start ranks without mpirun");
}

}  // namespace collbench
