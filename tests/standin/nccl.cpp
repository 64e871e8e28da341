// The NCCL calls collbench makes, over stand-in communicators (communicator.h) whose
// collectives run on the stand-in's streams. Compiled against the installed nccl.h, so a
// signature that drifts from the real one fails the build. Every call checks what a GPU would
// punish only by crashing or hanging: a communicator used after abort or destroy, a buffer
// outside its allocation or on another device, an in-place offset that is not NCCL's, a
// stream of another device, unbalanced group calls.
#include <nccl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "algorithms.h"
#include "communicator.h"
#include "datatypes.h"
#include "faults.h"
#include "memory.h"
#include "profiler.h"
#include "registration.h"
#include "stream.h"
#include "violation.h"

using standin::Collective;
using standin::CollectiveKind;

namespace {

constexpr char kIdMagic[] = "collbench-standin:";

std::mutex g_mutex;
std::set<const ncclComm*> g_communicators;  // every one created; never forgotten, so a use after
                                            // abort or destroy is named rather than undefined
std::string g_last_error;
thread_local int t_group_depth = 0;
// The sends and receives of the open group, launched together at its end (ncclComm::run).
struct PointToPoint {
  ncclComm* comm;
  CUstream_st* stream;
  Collective op;
};
thread_local std::vector<PointToPoint> t_group_point_to_point;

ncclResult_t failed(ncclResult_t result, std::string why) {
  std::lock_guard lock(g_mutex);
  g_last_error = "collbench stand-in: " + std::move(why);
  return result;
}

ncclComm* checked(ncclComm_t comm, const char* call) {
  {
    std::lock_guard lock(g_mutex);
    if (!comm || !g_communicators.contains(comm))
      standin::violation(call, "comm {} is no communicator ncclCommInitRank or ncclCommSplit made",
                         fmt::ptr(comm));
  }
  if (comm->aborted)
    standin::violation(call, "comm {} (rank {} of {}) was aborted by ncclCommAbort, which freed it",
                       fmt::ptr(comm), comm->rank, comm->nranks);
  if (comm->destroyed)
    standin::violation(call, "comm {} (rank {} of {}) was freed by ncclCommDestroy", fmt::ptr(comm),
                       comm->rank, comm->nranks);
  return comm;
}

// NCCL_HOSTID, else the host name and the boot id: src/misc/utils.cc, getHostHashOnce.
std::string host_identity() {
  if (const char* id = std::getenv("NCCL_HOSTID"); id && *id) return id;
  char name[128] = {};
  gethostname(name, sizeof(name) - 1);
  std::string identity = name;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  if (boot >> boot_id) identity += boot_id;
  return identity;
}

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value ? value : "";
}

// Where a communicator's ranks are: every one a node of its own, or all on one node.
struct Nodes {
  bool one_rank_per_node = true;
  bool one_node = true;
};

Nodes nodes_of(const standin::Segment& segment) {
  Nodes nodes;
  for (int a = 0; a < segment.nranks(); ++a)
    for (int b = a + 1; b < segment.nranks(); ++b) {
      const bool same = std::strcmp(segment.entry(a).host, segment.entry(b).host) == 0;
      nodes.one_rank_per_node = nodes.one_rank_per_node && !same;
      nodes.one_node = nodes.one_node && same;
    }
  return nodes;
}

// Joins `name` and checks what NCCL checks at init: no two ranks of one host on one GPU.
ncclResult_t create(const std::string& name, int nranks, int rank, ncclComm_t* made) {
  standin::RankEntry entry{};
  std::snprintf(entry.host, sizeof(entry.host), "%s", host_identity().c_str());
  cudaDeviceGetPCIBusId(entry.bus_id, sizeof(entry.bus_id), standin::current_device());
  if (standin::hangs_joining(rank)) standin::wait_until([] { return false; }, nullptr);
  standin::Segment* segment = nullptr;
  if (std::string why = standin::Segment::join(name, nranks, rank, entry, segment); !why.empty())
    return failed(ncclInvalidArgument, why);
  for (int other = 0; other < nranks; ++other) {
    const standin::RankEntry& e = segment->entry(other);
    if (other != rank && std::strcmp(e.host, entry.host) == 0 &&
        std::strcmp(e.bus_id, entry.bus_id) == 0)
      return failed(ncclInvalidUsage,
                    fmt::format("Duplicate GPU detected : rank {} and rank {} both "
                                "on CUDA device {}",
                                rank, other, entry.bus_id));
  }
  const Nodes nodes = nodes_of(*segment);
  auto* comm = new ncclComm;
  comm->one_rank_per_node = nodes.one_rank_per_node;
  comm->symmetric_support = environment("NCCL_WIN_ENABLE") != "0";
  comm->one_node = nodes.one_node;
  comm->name = name;
  comm->segment = segment;
  comm->rank = rank;
  comm->nranks = nranks;
  comm->device = standin::current_device();
  standin::read_pins(*comm);
  comm->runtime_connect = environment("NCCL_RUNTIME_CONNECT") != "0";
  {
    std::lock_guard lock(g_mutex);
    g_communicators.insert(comm);
  }
  standin::set_process_rank(rank);
  standin::profile_communicator(*comm);
  *made = comm;
  return ncclSuccess;
}

bool overlaps(const std::byte* a, std::size_t a_bytes, const std::byte* b, std::size_t b_bytes) {
  return a < b + b_bytes && b < a + a_bytes;
}

void count_registered(ncclComm& comm, const void* send, std::size_t send_bytes,
                      const void* receive, std::size_t receive_bytes) {
  ++comm.data_collectives;
  if (comm.registrations.registered(send, send_bytes) &&
      comm.registrations.registered(receive, receive_bytes))
    ++comm.on_registered_buffers;
}

// With COLLBENCH_STANDIN_REGISTRATION_REPORT set, what registration did for a communicator.
void report_registrations(const ncclComm& comm) {
  if (environment("COLLBENCH_STANDIN_REGISTRATION_REPORT").empty()) return;
  fmt::print(stderr,
             "collbench stand-in registrations (pid {}): rank {} of {}: {} data collectives, {} "
             "on registered buffers, {} by symmetric kernels\n",
             getpid(), comm.rank, comm.nranks, comm.data_collectives, comm.on_registered_buffers,
             comm.symmetric_kernels);
}

// A collective window registration: every rank of `comm` meets before any returns.
void meet(ncclComm& comm, const char* call) {
  standin::Segment* meeting = nullptr;
  const std::string name = fmt::format("{}.w{}", comm.name, ++comm.window_calls);
  if (std::string why = standin::Segment::join(name, comm.nranks, comm.rank, {}, meeting);
      !why.empty())
    standin::violation(call, "the ranks of comm {} did not meet: {}", fmt::ptr(&comm), why);
  delete meeting;
}

// Checks the buffers, stream and communicator of a collective and enqueues it.
ncclResult_t enqueue(const char* call, CollectiveKind kind, const void* send, void* receive,
                     std::size_t count, ncclDataType_t type, ncclRedOp_t op, int peer,
                     ncclComm_t handle, cudaStream_t stream) {
  ncclComm* comm = checked(handle, call);
  const std::size_t element = standin::element_bytes(type);
  if (element == 0)
    return failed(ncclInvalidArgument,
                  fmt::format("{}: datatype {} is unknown", call, static_cast<int>(type)));
  if (op < ncclSum || op > ncclAvg)
    return failed(ncclInvalidArgument,
                  fmt::format("{}: op {} is unknown", call, static_cast<int>(op)));
  const bool rooted = kind == CollectiveKind::broadcast || kind == CollectiveKind::reduce ||
                      kind == CollectiveKind::send || kind == CollectiveKind::receive;
  if (rooted && (peer < 0 || peer >= comm->nranks))
    return failed(ncclInvalidArgument,
                  fmt::format("{}: root or peer {} is not a rank of {}", call, peer, comm->nranks));
  CUstream_st* s = standin::stream_of(stream, call);
  if (s->device != comm->device)
    standin::violation(call, "stream {} is on device {}, comm {} on device {}", fmt::ptr(stream),
                       s->device, fmt::ptr(comm), comm->device);
  // NCCL 2.28.9 discards an empty collective once its arguments are checked: src/enqueue.cc,
  // taskAppend, "Empty collectives can be discarded" (sends and receives are kept).
  if (count == 0 && kind != CollectiveKind::send && kind != CollectiveKind::receive)
    return ncclSuccess;
  const std::size_t p = static_cast<std::size_t>(comm->nranks);
  const std::size_t bytes = count * element;
  std::size_t send_bytes = bytes, receive_bytes = bytes;
  if (kind == CollectiveKind::all_gather) receive_bytes = p * bytes;
  if (kind == CollectiveKind::reduce_scatter) send_bytes = p * bytes;
  if (kind == CollectiveKind::all_to_all) send_bytes = receive_bytes = p * bytes;
  const bool reads =
      kind != CollectiveKind::receive && (kind != CollectiveKind::broadcast || peer == comm->rank);
  const bool writes =
      kind != CollectiveKind::send && (kind != CollectiveKind::reduce || peer == comm->rank);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(receive);
  // NCCL 2.28.9 appends an alltoall as a send and a receive per peer on the same block offsets
  // (src/enqueue.cc, taskAppend), so in place a block received may overwrite one not yet sent:
  // NCCL has no in-place alltoall (nccl-tests' alltoall.cu: "We don't support in-place alltoall").
  // One rank copies, or nothing where the buffers are one (src/device/onerank.cu).
  if (kind == CollectiveKind::all_to_all && comm->nranks > 1 && count > 0 &&
      overlaps(in, send_bytes, out, receive_bytes))
    standin::violation(call,
                       "sendbuff {} and recvbuff {} overlap: NCCL has no in-place alltoall (a "
                       "send and a receive per peer on the same block; a block received may "
                       "overwrite one not yet sent)",
                       fmt::ptr(send), fmt::ptr(receive));
  if (reads && writes && count > 0 && overlaps(in, send_bytes, out, receive_bytes)) {
    // NCCL's in-place positions: the same buffer, or a rank's share of the larger one.
    const std::size_t share = comm->rank * bytes;
    const auto [in_place, rule] =
        kind == CollectiveKind::all_gather
            ? std::pair{in == out + share, "sendbuff = recvbuff + rank × sendcount"}
        : kind == CollectiveKind::reduce_scatter
            ? std::pair{out == in + share, "recvbuff = sendbuff + rank × recvcount"}
            : std::pair{in == out, "sendbuff = recvbuff"};
    if (!in_place)
      standin::violation(call,
                         "sendbuff {} and recvbuff {} overlap, but not in place: in place, {} "
                         "(rank {} of {}, {} bytes a rank)",
                         fmt::ptr(send), fmt::ptr(receive), rule, comm->rank, comm->nranks, bytes);
  }
  Collective c{kind, nullptr, nullptr, count, std::max(send_bytes, receive_bytes), type, op, peer};
  if (reads && count > 0)
    c.input = standin::device_access(send, send_bytes, comm->device, call, "sendbuff");
  if (writes && count > 0)
    c.output = standin::device_access(receive, receive_bytes, comm->device, call, "recvbuff");
  // A send or a receive joins its group (src/enqueue.cc, p2pTaskAppend), launched at its end;
  // called alone, it is a group of one (ncclEnqueueCheck opens and closes a group around it).
  if (kind == CollectiveKind::send || kind == CollectiveKind::receive) {
    if (t_group_depth > 0)
      t_group_point_to_point.push_back({comm, s, c});
    else
      s->enqueue([comm, c] { comm->run({c}, ""); });
    return ncclSuccess;
  }
  // One rank: a copy (a kernel for a pre-multiplied sum) with no plan, no algorithm and no
  // profiler event: src/enqueue.cc, taskAppend, and src/device/onerank.cu, ncclLaunchOneRank.
  if (comm->nranks == 1) {
    s->enqueue([comm, c] { comm->run({c}, ""); });
    return ncclSuccess;
  }
  const bool data = standin::is_data_collective(kind);
  if (data) count_registered(*comm, send, send_bytes, receive, receive_bytes);
  if (data && comm->registrations.in_symmetric_window(send) &&
      comm->registrations.in_symmetric_window(receive) &&
      standin::symmetric_kernel_runs(*comm, kind, type, op, c.bytes)) {
    ++comm->symmetric_kernels;
    s->enqueue([comm, c] { comm->run({c}, ""); });
    return ncclSuccess;
  }
  const standin::Choice choice = standin::choose(*comm, kind, op, c.bytes);
  if (choice.algorithm.empty()) {
    // src/enqueue.cc, topoGetAlgoInfo: the variables as they are at the call, not at init.
    const std::string algorithm = environment("NCCL_ALGO"), protocol = environment("NCCL_PROTO");
    return failed(algorithm.empty() && protocol.empty() ? ncclInternalError : ncclInvalidUsage,
                  fmt::format("Error : no algorithm/protocol available for function {} with "
                              "datatype {}.{}{}",
                              standin::name(kind), standin::type_name(type),
                              algorithm.empty() ? "" : " NCCL_ALGO was set to " + algorithm + ".",
                              protocol.empty() ? "" : " NCCL_PROTO was set to " + protocol + "."));
  }
  standin::profile_collective(*comm, c, choice, send, receive);
  s->enqueue(
      [comm, c, channels = choice.algorithm + "/" + choice.protocol] { comm->run({c}, channels); });
  return ncclSuccess;
}

// A gather (every rank sends its share to the root) or a scatter (every rank receives its share
// from it) as NCCL 2.28.9 appends them: one group, the root's receives or sends at rank × count
// (src/enqueue.cc, ncclEnqueueCheck opens the group, taskAppend fills it). An empty one is
// discarded ("Empty collectives can be discarded").
ncclResult_t rooted_point_to_point(const char* call, bool gathers, const void* send, void* receive,
                                   std::size_t count, ncclDataType_t type, int root,
                                   ncclComm_t handle, cudaStream_t stream) {
  ncclComm* comm = checked(handle, call);
  if (count == 0) return ncclSuccess;
  const std::size_t block = count * standin::element_bytes(type);
  const auto send_at = [&](const void* from, int peer) {
    return enqueue(call, CollectiveKind::send, from, nullptr, count, type, ncclSum, peer, handle,
                   stream);
  };
  const auto receive_at = [&](void* into, int peer) {
    return enqueue(call, CollectiveKind::receive, nullptr, into, count, type, ncclSum, peer,
                   handle, stream);
  };
  ncclGroupStart();
  ncclResult_t result = gathers ? send_at(send, root) : receive_at(receive, root);
  for (int r = 0; comm->rank == root && r < comm->nranks && result == ncclSuccess; ++r)
    result = gathers ? receive_at(static_cast<std::byte*>(receive) + r * block, r)
                     : send_at(static_cast<const std::byte*>(send) + r * block, r);
  ncclGroupEnd();
  return result;
}

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
      return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
      return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

const char* ncclGetLastError(ncclComm_t) {
  std::lock_guard lock(g_mutex);
  return g_last_error.c_str();
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  *id = ncclUniqueId{};
  std::random_device random;
  std::string name = kIdMagic;
  for (int i = 0; i < 16; ++i) name += fmt::format("{:02x}", random() & 0xff);
  std::memcpy(id->internal, name.data(), name.size());
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  const std::string text(id.internal, strnlen(id.internal, sizeof(id.internal)));
  if (text.rfind(kIdMagic, 0) != 0)
    return failed(ncclInvalidArgument,
                  "ncclCommInitRank: the unique id does not come from ncclGetUniqueId");
  return create("/collbench-standin-" + text.substr(sizeof(kIdMagic) - 1), nranks, rank, comm);
}

ncclResult_t ncclCommSplit(ncclComm_t handle, int color, int key, ncclComm_t* made, ncclConfig_t*) {
  ncclComm* comm = checked(handle, "ncclCommSplit");
  const std::string rendezvous = fmt::format("{}.s{}", comm->name, ++comm->splits);
  standin::RankEntry entry{};
  entry.color = color;
  entry.key = key;
  standin::Segment* meeting = nullptr;
  if (std::string why =
          standin::Segment::join(rendezvous, comm->nranks, comm->rank, entry, meeting);
      !why.empty())
    return failed(ncclInternalError, "ncclCommSplit: " + why);
  std::vector<std::pair<int, int>> members;  // (key, parent rank) of this color
  for (int r = 0; r < comm->nranks; ++r)
    if (meeting->entry(r).color == color) members.emplace_back(meeting->entry(r).key, r);
  delete meeting;
  *made = nullptr;
  if (color == NCCL_SPLIT_NOCOLOR) return ncclSuccess;
  std::sort(members.begin(), members.end());
  const int rank = static_cast<int>(
      std::find(members.begin(), members.end(), std::pair(key, comm->rank)) - members.begin());
  return create(fmt::format("{}.c{}", rendezvous, color), static_cast<int>(members.size()), rank,
                made);
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  *count = checked(comm, "ncclCommCount")->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  *rank = checked(comm, "ncclCommUserRank")->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  *device = checked(comm, "ncclCommCuDevice")->device;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* error) {
  *error = static_cast<ncclResult_t>(checked(comm, "ncclCommGetAsyncError")->async_error.load());
  if (*error != ncclSuccess)
    failed(*error,
           "injected: the network failed under a collective (COLLBENCH_STANDIN_ASYNC_ERROR)");
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  checked(comm, "ncclCommFinalize");
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm) return ncclSuccess;
  checked(comm, "ncclCommDestroy")->destroyed = true;
  comm->registrations.drop_all("ncclCommDestroy");
  report_registrations(*comm);
  standin::profile_end(*comm);
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm) return ncclSuccess;
  checked(comm, "ncclCommAbort")->aborted = true;
  comm->registrations.drop_all("ncclCommAbort");
  return ncclSuccess;
}

ncclResult_t ncclMemAlloc(void** pointer, size_t bytes) {
  standin::forbid_during_capture("ncclMemAlloc");
  *pointer =
      standin::allocate(bytes, standin::current_device(), standin::Allocator::nccl_mem_alloc);
  return *pointer ? ncclSuccess
                  : failed(ncclUnhandledCudaError, "ncclMemAlloc: cuMemCreate: out of memory");
}

ncclResult_t ncclMemFree(void* pointer) {
  if (!pointer) return ncclSuccess;
  standin::forbid_during_capture("ncclMemFree");
  standin::release(pointer, standin::Allocator::nccl_mem_alloc, "ncclMemFree");
  return ncclSuccess;
}

ncclResult_t ncclCommRegister(const ncclComm_t handle, void* buffer, size_t bytes,
                              void** registration) {
  ncclComm* comm = checked(handle, "ncclCommRegister");
  standin::device_access(buffer, bytes, comm->device, "ncclCommRegister", "buff");
  standin::count_registration(buffer, +1, "ncclCommRegister");
  *registration =
      comm->registrations.add({static_cast<std::byte*>(buffer), bytes, false, false});
  return ncclSuccess;
}

ncclResult_t ncclCommDeregister(const ncclComm_t handle, void* registration) {
  ncclComm* comm = checked(handle, "ncclCommDeregister");
  const auto taken = comm->registrations.take(registration);
  if (!taken || taken->window)
    standin::violation("ncclCommDeregister", "handle {} is no ncclCommRegister of comm {}{}",
                       fmt::ptr(registration), fmt::ptr(comm),
                       taken ? " (a window: ncclCommWindowDeregister drops it)" : "");
  standin::count_registration(taken->address, -1, "ncclCommDeregister");
  return ncclSuccess;
}

ncclResult_t ncclCommWindowRegister(ncclComm_t handle, void* buffer, size_t bytes,
                                    ncclWindow_t* window, int flags) {
  constexpr const char* kCall = "ncclCommWindowRegister";
  ncclComm* comm = checked(handle, kCall);
  *window = nullptr;
  if (!buffer || bytes == 0) return ncclSuccess;
  standin::device_access(buffer, bytes, comm->device, kCall, "buff");
  // With symmetric support a window is collective (src/dev_runtime.cc, ncclCommWindowRegister:
  // a bootstrap barrier); without, a local registration.
  if (comm->symmetric_support) {
    // NCCL maps each rank's cuMem allocation into the others': only ncclMemAlloc's will do.
    const auto held = standin::allocation_holding(buffer);
    if (held->allocator != standin::Allocator::nccl_mem_alloc)
      return failed(ncclUnhandledCudaError,
                    fmt::format("{}: Cuda failure 'invalid argument' from "
                                "cuMemRetainAllocationHandle: buff {} is {} memory, not cuMem's "
                                "(ncclMemAlloc)",
                                kCall, fmt::ptr(buffer), standin::name(held->allocator)));
    if ((static_cast<std::byte*>(buffer) - held->address) % NCCL_WIN_REQUIRED_ALIGNMENT != 0)
      return failed(ncclInvalidArgument,
                    fmt::format("{}: Window address must be suitably aligned.", kCall));
    meet(*comm, kCall);
  }
  standin::count_registration(buffer, +1, kCall);
  *window = reinterpret_cast<ncclWindow_t>(comm->registrations.add(
      {static_cast<std::byte*>(buffer), bytes, true,
       comm->symmetric_support && (flags & NCCL_WIN_COLL_SYMMETRIC) != 0}));
  return ncclSuccess;
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t handle, ncclWindow_t window) {
  constexpr const char* kCall = "ncclCommWindowDeregister";
  ncclComm* comm = checked(handle, kCall);
  if (!window) return ncclSuccess;
  const auto taken = comm->registrations.take(window);
  if (!taken || !taken->window)
    standin::violation(kCall, "window {} is no ncclCommWindowRegister of comm {}{}",
                       fmt::ptr(window), fmt::ptr(comm),
                       taken ? " (ncclCommDeregister drops it)" : "");
  // Local either way: src/dev_runtime.cc, ncclCommWindowDeregister (symWindowDestroy unmaps this
  // rank's mappings; no barrier).
  standin::count_registration(taken->address, -1, kCall);
  return ncclSuccess;
}

ncclResult_t ncclGroupStart(void) {
  ++t_group_depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void) {
  if (t_group_depth == 0)
    standin::violation("ncclGroupEnd", "no ncclGroupStart is open on this thread");
  if (--t_group_depth > 0) return ncclSuccess;
  // Each communicator's operations on each stream, as one launch there.
  std::vector<PointToPoint> pending;
  pending.swap(t_group_point_to_point);
  while (!pending.empty()) {
    const PointToPoint first = pending.front();
    std::vector<Collective> group;
    std::erase_if(pending, [&](const PointToPoint& p) {
      if (p.comm != first.comm || p.stream != first.stream) return false;
      group.push_back(p.op);
      return true;
    });
    first.stream->enqueue([comm = first.comm, group] { comm->run(group, ""); });
  }
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void* send, void* receive, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclAllReduce", CollectiveKind::all_reduce, send, receive, count, type, op, 0,
                 comm, stream);
}

ncclResult_t ncclAllGather(const void* send, void* receive, size_t count, ncclDataType_t type,
                           ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclAllGather", CollectiveKind::all_gather, send, receive, count, type, ncclSum,
                 0, comm, stream);
}

ncclResult_t ncclReduceScatter(const void* send, void* receive, size_t count, ncclDataType_t type,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclReduceScatter", CollectiveKind::reduce_scatter, send, receive, count, type,
                 op, 0, comm, stream);
}

ncclResult_t ncclAlltoAll(const void* send, void* receive, size_t count, ncclDataType_t type,
                          ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclAlltoAll", CollectiveKind::all_to_all, send, receive, count, type, ncclSum,
                 0, comm, stream);
}

// NCCL 2.28.9 appends a gather as a send of each rank's share to the root and, on the root, a
// receive from each rank at rank × count of recvbuff; a scatter the other way round
// (src/enqueue.cc, taskAppend). One rank: a copy (ncclLaunchOneRank).
ncclResult_t ncclGather(const void* send, void* receive, size_t count, ncclDataType_t type,
                        int root, ncclComm_t handle, cudaStream_t stream) {
  return rooted_point_to_point("ncclGather", true, send, receive, count, type, root, handle,
                               stream);
}

ncclResult_t ncclScatter(const void* send, void* receive, size_t count, ncclDataType_t type,
                         int root, ncclComm_t handle, cudaStream_t stream) {
  return rooted_point_to_point("ncclScatter", false, send, receive, count, type, root, handle,
                               stream);
}

ncclResult_t ncclBroadcast(const void* send, void* receive, size_t count, ncclDataType_t type,
                           int root, ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclBroadcast", CollectiveKind::broadcast, send, receive, count, type, ncclSum,
                 root, comm, stream);
}

ncclResult_t ncclReduce(const void* send, void* receive, size_t count, ncclDataType_t type,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclReduce", CollectiveKind::reduce, send, receive, count, type, op, root, comm,
                 stream);
}

ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  return enqueue("ncclSend", CollectiveKind::send, send, nullptr, count, type, ncclSum, peer, comm,
                 stream);
}

ncclResult_t ncclRecv(void* receive, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return enqueue("ncclRecv", CollectiveKind::receive, nullptr, receive, count, type, ncclSum, peer,
                 comm, stream);
}

}  // extern "C"
