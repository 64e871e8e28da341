#pragma once
// The backends this build has, by name.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend_options.h"
#include "backends/communicator.h"
#include "backends/point_to_point.h"

namespace collbench {

std::vector<std::string> built_backends();
// The backend used when --backend is not given: nccl where GPUs and NCCL are present, else mpi.
std::string default_backend();
// Starts the named backend (initialising its library); throws std::invalid_argument for a
// name this build does not have, BackendUnavailable when this host cannot run it.
std::unique_ptr<Backend> start_backend(std::string_view name, const BackendOptions& options);

// This rank's side of `links` (UCX), its messages in `memory`. Throws BackendUnavailable when
// this build has no UCX or messages cannot live in `memory` here, and what the library throws
// when it cannot start.
std::unique_ptr<PointToPoint> start_point_to_point(MessageMemory memory);

// After start_backend threw, and after the reason is printed: ends the launcher's job in step
// (MPI_Finalize where the start initialised MPI), so that a peer that exits early cannot get
// the rank that prints the reason killed before it does.
void end_failed_start();

// For a command that never communicates: the error signals that the libraries took when they
// loaded given back (UCX's: backends/ucx/ucs_signals.h), so that a crash is the process's own to
// report and a handler it installs for one takes effect.
void give_back_library_crash_handlers();

// What a backend can do beyond the collectives every backend runs, asked before it starts.
struct BackendCapabilities {
  bool cuda_graphs = false;          // a sample's operations captured as one graph (-G)
  bool pinned_tuning = false;        // the library's algorithm and protocol pinned (--nccl-algo)
  bool buffer_registration = false;  // buffers registered with the library (-R)
  bool starts_without_mpi = false;   // ranks started without mpirun or srun (--np N)
};
// A backend's, whether this build has it or not (start_backend says that); none for a name that
// is no backend.
BackendCapabilities capabilities_of(std::string_view name);
// What `run --np N` children need in their environment to find each other. Throws
// BackendUnavailable when this host cannot run them.
std::map<std::string, std::string> local_launch_environment(std::string_view name, int nranks,
                                                            bool virtual_nodes);

}  // namespace collbench
