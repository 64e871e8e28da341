#pragma once
// A stand-in NCCL communicator: its ranks' shared segment, its state as the API sees it, and
// the collectives its streams run, moving and reducing real data through the segment.
#include <nccl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "registration.h"
#include "segment.h"

namespace standin {

enum class CollectiveKind {
  all_reduce,
  all_gather,
  reduce_scatter,
  all_to_all,
  broadcast,
  reduce,
  send,
  receive
};

struct Collective {
  CollectiveKind kind;
  const std::byte* input;  // the stand-in's views (memory.h)
  std::byte* output;
  std::size_t count;  // NCCL's count: per rank for allgather's input and reduce-scatter's output,
                      // per peer for alltoall
  std::size_t bytes;  // a rank's larger buffer: what the cost model and NCCL's choice weigh
  ncclDataType_t type;
  ncclRedOp_t op;
  int peer;  // root of broadcast and reduce, peer of send and receive
};

const char* name(CollectiveKind kind);
// allreduce, allgather and reduce-scatter: what a sweep measures, where NCCL chooses among
// algorithms and registered buffers count; the others carry collbench's control plane.
bool is_data_collective(CollectiveKind kind);

}  // namespace standin

struct ncclComm {
  std::string name;  // of its segment; splits are named after it
  standin::Segment* segment = nullptr;
  int rank = 0;
  int nranks = 1;
  int device = 0;
  std::vector<std::string> algorithms;  // NCCL_ALGO's when it was created, else Ring
  std::vector<std::string> protocols;   // NCCL_PROTO's; empty: by size (algorithms.h)
  bool one_rank_per_node = false;
  // src/init.cc:1376, symmetricSupport = isAllCudaP2p && NCCL_WIN_ENABLE && cuMem. isAllCudaP2p
  // looks at pairs of ranks on one host only (src/transport.cc, ncclTransportCheckP2pType), and
  // the stand-in's devices reach each other: true unless NCCL_WIN_ENABLE=0, one rank per node too.
  bool symmetric_support = true;
  bool one_node = false;  // every rank on one host: where NCCL's symmetric kernels run
  bool runtime_connect = true;  // NCCL_RUNTIME_CONNECT when it was created
  std::atomic<bool> aborted{false};
  bool destroyed = false;
  std::atomic<int> async_error{ncclSuccess};
  std::uint64_t splits = 0;
  std::uint64_t window_calls = 0;  // collective window (de)registrations, naming their meetings
  standin::Registrations registrations;
  // Its allreduces, allgathers and reduce-scatters, those of them on registered buffers and
  // those symmetric kernels ran (COLLBENCH_STANDIN_REGISTRATION_REPORT).
  std::uint64_t data_collectives = 0;
  std::uint64_t on_registered_buffers = 0;
  std::uint64_t symmetric_kernels = 0;
  void* profiler_context = nullptr;

  // Runs on a stream thread: one collective of this communicator at a time, in the order the
  // streams reach them; `calls` holds the collective, or a group's sends and receives,
  // progressed together as NCCL's group launch does (src/group.cc, groupLaunch: every task of
  // the group in one plan), so that a ring of sends and receives completes, each peer's in the
  // order of the calls (src/enqueue.cc, p2pTaskAppend queues them in order). Returns early,
  // leaving the output as it is, when the communicator is aborted.
  // `channels`: its algorithm and protocol ("Ring/LL"), whose first use sets them up first
  // (NCCL's runtime connect, its default), unless NCCL_RUNTIME_CONNECT=0 set all up at init;
  // empty for a symmetric kernel, set up with its windows.
  void run(const std::vector<standin::Collective>& calls, const std::string& channels);

 private:
  // allreduce and reduce: `writes` for the ranks that receive the result.
  void reduce_chunks(const standin::Collective& c, bool writes);
  void all_gather(const standin::Collective& c);
  // `first` and `n`: the chunk's elements within a block; `chunks`: one per rank, in rank order.
  using BlockChunks = std::function<void(std::size_t first, std::size_t n,
                                         const std::vector<const std::byte*>& chunks)>;
  void exchange_blocks(const standin::Collective& c, const BlockChunks& take);
  void reduce_scatter(const standin::Collective& c);
  void all_to_all(const standin::Collective& c);
  void broadcast(const standin::Collective& c);
  void exchange(const std::vector<standin::Collective>& group);
  // Whether this call runs a fault's hang or error (faults.h), having run it if so.
  bool fault_ran(const standin::Collective& c);
  // The end of every call: the corruption and the cost faults.h asks for.
  void corrupt(const standin::Collective& c);
  void take_cost(std::size_t bytes, double start, bool connects);
  void barrier();

  std::mutex running_;
  std::set<std::string> connected_;  // channels set up so far
  std::uint64_t barriers_passed_ = 0;
};
