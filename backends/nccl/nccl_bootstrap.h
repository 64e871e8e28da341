#pragma once
// How NCCL ranks find each other and their GPU: through MPI when started by mpirun or srun, or
// through the environment `collbench run --np N` gives its children.
#include <nccl.h>

#include <map>
#include <optional>
#include <string>

namespace collbench::nccl {

// Set by the local launcher: the NCCL unique id, as hex, shared by all its children.
inline constexpr const char* kUniqueIdVariable = "COLLBENCH_NCCL_ID";

struct RankPlacement {
  int rank = 0;
  int nranks = 1;
  int local_rank = 0;  // among the ranks of this host: picks the GPU
  int local_size = 1;
  bool mpi = false;    // MPI was initialised and is finalised at the end
};

// From the local launcher's environment when it is set, else MPI (initialised here).
RankPlacement place_this_rank();
// Rank 0's id reaches every rank: read from the environment, or broadcast over MPI.
ncclUniqueId share_unique_id(const RankPlacement& placement);
void finish_bootstrap(const RankPlacement& placement);
[[noreturn]] void abort_mpi_job(int exit_code);

std::string encode_unique_id(const ncclUniqueId& id);
ncclUniqueId decode_unique_id(const std::string& hex);

// The GPUs this process sees; throws BackendUnavailable when there is none.
int device_count();

// The string NCCL hashes into its host identity: NCCL_HOSTID when set, else the host name and
// the boot id (NCCL 2.28.9, src/misc/utils.cc, getHostHashOnce). Ranks with the same one are on
// one node as NCCL sees it.
std::string nccl_host_identity();

struct GpuSharing {
  int ranks = 1;          // of this host on this rank's GPU, this one included
  int one_identity = 1;   // of those, with this rank's NCCL host identity: NCCL refuses two
};

// Who shares the GPU with this PCI bus id: under MPI from every local rank's bus id and NCCL
// host identity (each may see other GPUs: srun --gpus-per-task, a per-rank
// CUDA_VISIBLE_DEVICES), under the local launcher, whose ranks all see the same GPUs and whose
// sharing ranks the launcher gave identities of their own, from the local rank and `devices`.
GpuSharing gpu_sharing(const RankPlacement& placement, const std::string& bus_id, int devices);
// Throws BackendUnavailable where ranks sharing this GPU have one NCCL host identity: NCCL would
// fail them at init ("Duplicate GPU detected", src/init.cc, initTransportsRank), and the user
// needs to know to give each its own NCCL_HOSTID.
void require_identities_when_shared(const GpuSharing& sharing, const std::string& bus_id);

// Whether contexts on `device` are shared through CUDA MPS, as the driver says (a control pipe
// on disk may be stale).
bool mps_enabled(int device);
// Throws BackendUnavailable when `sharing` ranks use this rank's GPU (`bus_id`) and `mps`, what
// mps_enabled said of it, is false: the ranks would time-slice the GPU, and every latency would
// be milliseconds of scheduling.
void require_mps_when_shared(int sharing, const std::string& bus_id, bool mps);

// The environment for `run --np N` children: a fresh unique id.
std::map<std::string, std::string> local_launch_environment(int nranks, bool virtual_nodes);

}  // namespace collbench::nccl
