#pragma once
// What the launcher (mpirun, srun) tells a process before any library starts: enough to let
// one rank, not all of them, print a usage error.
#include <optional>

namespace collbench {

// This process's rank from COLLBENCH_RANK (run --np), OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK
// or SLURM_PROCID.
std::optional<int> launcher_rank();

// Whether the launcher made the ranks give the CPU away while they wait: Open MPI's
// mpi_yield_when_idle, set or, unset, on by default where it oversubscribed the node.
bool ranks_yield_when_idle();

}  // namespace collbench
