#include "nccl_backend.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "algorithm_rules.h"
#include "choice_recorder.h"
#include "nccl_bootstrap.h"
#include "nccl_check.h"
#include "nccl_communicator.h"

namespace collbench {
namespace {

std::string version_text(int code) {
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

std::string bus_id_of(int device) {
  char bus_id[32] = {};
  cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device);
  return bus_id;
}

std::string cuda_version_text(int code) {
  return fmt::format("{}.{}", code / 1000, code % 1000 / 10);
}

// Sets an environment variable for the lifetime of the object and restores what was there:
// NCCL reads NCCL_ALGO and NCCL_PROTO when a communicator is created.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value.empty())
      unsetenv(name);
    else
      setenv(name, value.c_str(), 1);
  }
  ~ScopedVariable() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class NcclBackend final : public Backend {
 public:
  explicit NcclBackend(const BackendOptions& options)
      : options_(options), placement_(nccl::place_this_rank()) {
    // On failure MPI stays initialised: the caller prints why, then end_failed_start().
    const int devices = nccl::device_count();
    device_ = placement_.local_rank % devices;
    nccl::check(cudaSetDevice(device_), "cudaSetDevice");
    nccl::check(cudaGetDeviceProperties(&properties_, device_), "cudaGetDeviceProperties");
    mps_ = nccl::mps_enabled(device_);
    const std::string bus_id = bus_id_of(device_);
    const nccl::GpuSharing sharing = nccl::gpu_sharing(placement_, bus_id, devices);
    nccl::require_mps_when_shared(sharing.ranks, bus_id, mps_);
    nccl::require_identities_when_shared(sharing, bus_id);
    // NCCL reports its choices to the built-in plugin, unless the user named a profiler of
    // their own, or none.
    setenv("NCCL_PROFILER_PLUGIN", nccl::kBuiltInProfiler, /*overwrite=*/0);
    const ncclUniqueId id = nccl::share_unique_id(placement_);
    ncclComm_t comm = nullptr;
    nccl::check(ncclCommInitRank(&comm, placement_.nranks, id, placement_.rank),
                "ncclCommInitRank");
    world_ = std::make_unique<nccl::NcclCommunicator>(comm, options_);
  }
  ~NcclBackend() override {
    world_.reset();
    nccl::finish_bootstrap(placement_);
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string name() const override { return "nccl"; }

  std::string version() const override {
    int code = 0;
    ncclGetVersion(&code);
    return "NCCL " + version_text(code);
  }

  Communicator& world() override { return *world_; }

  bool supports(DataType type) const override {
    const bool fp8 = type == DataType::float8_e4m3 || type == DataType::float8_e5m2;
    return !fp8 || properties_.major >= 9;  // NCCL reduces fp8 on sm_90 and newer
  }
  bool supports(ReduceOp) const override { return true; }
  bool supports(LoadKind) const override { return true; }
  std::string why_unsupported(CollectiveKind kind, DataType type, ReduceOp op,
                              const Tuning& tuning) const override {
    // The node and rail communicators are split from the group, untuned: a pinned algorithm
    // would hold for the group only.
    if (describe(kind).composed_across_nodes)
      return tuning == Tuning{} ? "" : "the hierarchy's communicators run untuned";
    return nccl::why_ineligible(tuning, kind, type, op);
  }

  // NCCL appends an alltoall as a send and a receive per peer on the same block offsets
  // (src/enqueue.cc, taskAppend): in place, a block received may overwrite one not yet sent.
  // A sendrecv in place is a send and a receive of one buffer in one group, alike. nccl-tests
  // times both but checks nothing (alltoall.cu: "We don't support in-place alltoall";
  // sendrecv.cu: "We don't support in-place sendrecv").
  std::string why_not_in_place(CollectiveKind kind) const override {
    if (world_->size() == 1) return {};
    if (kind == CollectiveKind::alltoall)
      return "NCCL has no in-place alltoall: its sends and receives of one block share the buffer";
    if (kind == CollectiveKind::sendrecv)
      return "NCCL has no in-place sendrecv: its send and receive share the buffer";
    return {};
  }

  std::map<std::string, std::string> provenance() const override {
    int library = 0, runtime = 0, driver = 0;
    ncclGetVersion(&library);
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    return {{"nccl_version_header", version_text(NCCL_VERSION_CODE)},
            {"nccl_version_library", version_text(library)},
            {"cuda_runtime_version", cuda_version_text(runtime)},
            {"cuda_driver_version", cuda_version_text(driver)},
            {"gpu_name", properties_.name},
            {"gpu_compute_capability", fmt::format("{}.{}", properties_.major, properties_.minor)},
            {"cuda_graphs", options_.cuda_graphs ? "yes" : "no"},
            {"cuda_mps", mps_ ? "yes" : "no"},
            {"bootstrap", placement_.mpi ? "mpi" : "local launcher (--np)"},
            {"nccl_profiler", profiler_text()}};
  }

  DeviceDescription device() const override {
    DeviceDescription description{properties_.name, bus_id_of(device_), ""};
    int devices = 0;
    cudaGetDeviceCount(&devices);
    for (int other = 0; other < devices; ++other) {
      int reachable = 0;
      if (other == device_ || cudaDeviceCanAccessPeer(&reachable, device_, other) != cudaSuccess ||
          !reachable)
        continue;
      if (!description.peers.empty()) description.peers += ",";
      description.peers += bus_id_of(other);
    }
    return description;
  }

  // NCCL reads NCCL_ALGO and NCCL_PROTO (a plain getenv) whenever it creates a communicator,
  // the split included.
  std::unique_ptr<Communicator> tuned_split(const Tuning& tuning, int color, int key) override {
    const ScopedVariable algorithm("NCCL_ALGO", tuning.algorithm);
    const ScopedVariable protocol("NCCL_PROTO", tuning.protocol);
    return world_->split(color, key);
  }

  void abort_communication() noexcept override { nccl::abort_all_communicators(); }

 private:
  // What NCCL 2.28.9 reports (tests/standin/CONFORMANCE.md): one rank copies with no plan and
  // no event (ncclLaunchOneRank); an alltoall is sends and receives, reported without an
  // algorithm; the collectives of its symmetric kernels are reported to no profiler.
  std::string profiler_text() const {
    if (nccl::profiled_communicators() == 0) {
      const char* setting = std::getenv("NCCL_PROFILER_PLUGIN");
      return fmt::format("not loaded (NCCL_PROFILER_PLUGIN={}): no chosen algorithm recorded",
                         setting ? setting : "");
    }
    if (world_->size() == 1)
      return "collbench: none recorded: on one rank NCCL copies, choosing no algorithm";
    std::string text =
        "collbench: algorithm, protocol and channels per point; none for alltoall, gather, "
        "scatter and sendrecv (NCCL reports their sends and receives, with no algorithm)";
    if (options_.buffer_registration == BufferRegistration::symmetric)
      text += "; none where NCCL's symmetric kernels ran it (-R 2 on one node: NCCL reports those "
              "to no profiler)";
    return text;
  }

  void abort_job(int exit_code) override {
    nccl::abort_all_communicators();
    // Without MPI the local launcher ends the other ranks when this one exits.
    if (placement_.mpi) nccl::abort_mpi_job(exit_code);
  }

  BackendOptions options_;
  nccl::RankPlacement placement_;
  int device_ = 0;
  bool mps_ = false;
  cudaDeviceProp properties_{};
  std::unique_ptr<nccl::NcclCommunicator> world_;
};

}  // namespace

std::unique_ptr<Backend> make_nccl_backend(const BackendOptions& options) {
  return std::make_unique<NcclBackend>(options);
}

bool nccl_usable() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

std::map<std::string, std::string> nccl_local_launch_environment(int nranks, bool virtual_nodes) {
  return nccl::local_launch_environment(nranks, virtual_nodes);
}

}  // namespace collbench
