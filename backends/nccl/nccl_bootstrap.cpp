#include "nccl_bootstrap.h"

#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/communicator.h"
#include "nccl_check.h"

namespace collbench::nccl {
namespace {

int integer_from_environment(const char* variable) {
  const char* text = std::getenv(variable);
  if (!text) throw std::runtime_error(fmt::format("{} is not set", variable));
  return std::stoi(text);
}

// The ranks of this host under MPI (place_this_rank), kept until finish_bootstrap.
MPI_Comm g_host = MPI_COMM_NULL;

std::filesystem::path mps_control_pipe() {
  const char* directory = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  return std::filesystem::path(directory && *directory ? directory : "/tmp/nvidia-mps") / "control";
}

// Throws BackendUnavailable, saying `sharing` (who would share a GPU), when no MPS daemon runs.
void require_mps_daemon(const std::string& sharing) {
  if (std::filesystem::exists(mps_control_pipe())) return;
  throw BackendUnavailable(fmt::format(
      "{}, but CUDA MPS is not running (no {}): without it their kernels time-slice the GPU and "
      "every latency is milliseconds of scheduling. Start it with `nvidia-cuda-mps-control -d` "
      "(see docs/gpus.md, \"On GPUs\")",
      sharing, mps_control_pipe().string()));
}

}  // namespace

RankPlacement place_this_rank() {
  RankPlacement placement;
  if (std::getenv(kUniqueIdVariable)) {
    placement.rank = integer_from_environment("COLLBENCH_RANK");
    placement.nranks = integer_from_environment("COLLBENCH_NRANKS");
    placement.local_rank = integer_from_environment("COLLBENCH_LOCAL_RANK");
    placement.local_size = integer_from_environment("COLLBENCH_LOCAL_SIZE");
    return placement;
  }
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  placement.mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &placement.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &placement.nranks);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, placement.rank, MPI_INFO_NULL,
                      &g_host);
  MPI_Comm_rank(g_host, &placement.local_rank);
  MPI_Comm_size(g_host, &placement.local_size);
  return placement;
}

ncclUniqueId share_unique_id(const RankPlacement& placement) {
  if (!placement.mpi) return decode_unique_id(std::getenv(kUniqueIdVariable));
  ncclUniqueId id{};
  if (placement.rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  return id;
}

void finish_bootstrap(const RankPlacement& placement) {
  if (!placement.mpi) return;
  MPI_Comm_free(&g_host);
  MPI_Finalize();
}

void abort_mpi_job(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

std::string encode_unique_id(const ncclUniqueId& id) {
  std::string hex;
  for (char byte : id.internal) hex += fmt::format("{:02x}", static_cast<unsigned char>(byte));
  return hex;
}

ncclUniqueId decode_unique_id(const std::string& hex) {
  ncclUniqueId id{};
  if (hex.size() != 2 * sizeof(id.internal))
    throw std::invalid_argument(fmt::format("{} has {} hex digits, expected {}", kUniqueIdVariable,
                                            hex.size(), 2 * sizeof(id.internal)));
  for (std::size_t i = 0; i < sizeof(id.internal); ++i)
    id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

int device_count() {
  int devices = 0;
  if (const cudaError_t error = cudaGetDeviceCount(&devices); error != cudaSuccess || devices == 0)
    throw BackendUnavailable(fmt::format("the nccl backend needs a GPU, and this host has none "
                                         "usable ({})",
                                         error == cudaSuccess ? "no CUDA device"
                                                              : cudaGetErrorString(error)));
  return devices;
}

std::string nccl_host_identity() {
  if (const char* id = std::getenv("NCCL_HOSTID"); id && *id) return id;
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  std::string identity = name;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  if (boot >> boot_id) identity += boot_id;
  return identity;
}

GpuSharing gpu_sharing(const RankPlacement& placement, const std::string& bus_id, int devices) {
  if (!placement.mpi) {
    const int device = placement.local_rank % devices;
    return {placement.local_size / devices + (device < placement.local_size % devices ? 1 : 0),
            1};
  }
  constexpr std::size_t kBusIdBytes = 32, kIdentityBytes = 256;
  std::string mine = bus_id;
  mine.resize(kBusIdBytes, '\0');
  std::string identity = nccl_host_identity();
  identity.resize(kIdentityBytes, '\0');
  mine += identity;
  const std::size_t entry = mine.size();
  std::string all(std::size_t(placement.local_size) * entry, '\0');
  MPI_Allgather(mine.data(), static_cast<int>(entry), MPI_CHAR, all.data(),
                static_cast<int>(entry), MPI_CHAR, g_host);
  GpuSharing sharing{0, 0};
  for (int r = 0; r < placement.local_size; ++r) {
    const std::size_t at = std::size_t(r) * entry;
    if (all.compare(at, kBusIdBytes, mine, 0, kBusIdBytes) != 0) continue;
    ++sharing.ranks;
    sharing.one_identity += all.compare(at, entry, mine) == 0;
  }
  return sharing;
}

void require_identities_when_shared(const GpuSharing& sharing, const std::string& bus_id) {
  if (sharing.one_identity <= 1) return;
  throw BackendUnavailable(fmt::format(
      "{} ranks of this host are on the GPU at {} with one NCCL host identity: NCCL refuses two "
      "ranks of one communicator on one GPU (\"Duplicate GPU detected\"). Make each rank a node "
      "of its own with an NCCL_HOSTID of its own, e.g. mpirun ... sh -c "
      "'NCCL_HOSTID=node$OMPI_COMM_WORLD_RANK exec collbench run ...' (--virtual-nodes does it "
      "under --np)",
      sharing.one_identity, bus_id));
}

bool mps_enabled(int device) {
  int enabled = 0;
  return cudaDeviceGetAttribute(&enabled, cudaDevAttrMpsEnabled, device) == cudaSuccess &&
         enabled != 0;
}

void require_mps_when_shared(int sharing, const std::string& bus_id, bool mps) {
  if (sharing <= 1 || mps) return;
  require_mps_daemon(
      fmt::format("{} ranks of this host would share the GPU at {}", sharing, bus_id));
  throw BackendUnavailable(fmt::format(
      "{} ranks of this host share the GPU at {}, but this rank's context is not an MPS client, "
      "though {} exists (a stale pipe of a daemon that is gone?): the ranks would time-slice the "
      "GPU. Restart MPS: `echo quit | nvidia-cuda-mps-control; nvidia-cuda-mps-control -d`",
      sharing, bus_id, mps_control_pipe().string()));
}

std::map<std::string, std::string> local_launch_environment(int nranks, bool virtual_nodes) {
  const int devices = device_count();
  if (nranks > devices)
    require_mps_daemon(fmt::format("{} ranks would share {} GPU{} on this host", nranks, devices,
                                   devices == 1 ? "" : "s"));
  if (nranks > devices && !virtual_nodes)
    throw BackendUnavailable(fmt::format(
        "{} ranks on {} GPU{}: NCCL refuses two ranks of one communicator on one GPU; add "
        "--virtual-nodes to make each rank a node of its own",
        nranks, devices, devices == 1 ? "" : "s"));
  // The bootstrap root listens in this process: on loopback, like the ranks it serves.
  setenv("NCCL_SOCKET_IFNAME", "lo", /*overwrite=*/0);
  ncclUniqueId id{};
  check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return {{kUniqueIdVariable, encode_unique_id(id)}};
}

}  // namespace collbench::nccl
