#include "nccl_communicator.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "choice_recorder.h"
#include "gpu_load.h"
#include "nccl_bootstrap.h"
#include "nccl_check.h"
#include "pattern_kernels.h"

namespace collbench::nccl {
namespace {

// The live communicators, so the watchdog can abort them. Waits hold the lock while they touch
// a communicator, so an abort never frees one under a running query.
std::mutex g_live_mutex;
std::vector<ncclComm_t> g_live;
bool g_aborted = false;

// With g_live_mutex held: once, by the watchdog or the first asynchronous error. The newest
// first: a split before the communicator it was split from.
void abort_live_communicators() noexcept {
  g_aborted = true;
  for (auto comm = g_live.rbegin(); comm != g_live.rend(); ++comm) ncclCommAbort(*comm);
  g_live.clear();
}

// Device memory whose every copy and fill runs on the communicator's stream: kernels and NCCL
// run there, and a non-blocking stream is not ordered against the legacy one. From ncclMemAlloc
// (cuMem where the driver has it, else cudaMalloc), as nccl-tests 2.19.6 allocates with NCCL
// 2.19 or newer (src/common.cu, AllocateBuffs), so that -R 0 measures the memory its -R 0 does;
// a symmetric window (-R 2) needs it too.
class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), stream_(stream) {
    if (ncclMemAlloc(&data_, std::max<std::size_t>(bytes, 1)) != ncclSuccess) {
      cudaGetLastError();  // clear the allocation error the runtime may have recorded
      throw std::bad_alloc();
    }
    check(cudaMemsetAsync(data_, 0, bytes, stream_), "cudaMemsetAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  ~DeviceBuffer() override {
    cudaStreamSynchronize(stream_);
    ncclMemFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::byte* data() override { return static_cast<std::byte*>(data_); }
  std::size_t bytes() const override { return bytes_; }
  void upload(std::span<const std::byte> host, std::size_t offset_bytes) override {
    check(cudaMemcpyAsync(static_cast<std::byte*>(data_) + offset_bytes, host.data(), host.size(),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync to the device");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  void download(std::span<std::byte> host, std::size_t offset_bytes) const override {
    check(cudaMemcpyAsync(host.data(), static_cast<const std::byte*>(data_) + offset_bytes,
                          host.size(), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync from the device");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
  cudaStream_t stream_;
};

// The run's buffers registered with one communicator, deregistered at the end unless an abort
// freed the communicator, and its registrations with it.
class NcclRegistration final : public Registration {
 public:
  NcclRegistration(ncclComm_t comm, BufferRegistration kind) : comm_(comm), kind_(kind) {}
  ~NcclRegistration() override {
    {
      std::lock_guard lock(g_live_mutex);
      if (g_aborted) return;
    }
    // Not under the lock: a window's deregistration is local but waits for a stream of NCCL's
    // (src/dev_runtime.cc, ncclCommWindowDeregister), which the watchdog must be able to abort.
    for (void* handle : handles_)
      if (kind_ == BufferRegistration::symmetric)
        ncclCommWindowDeregister(comm_, static_cast<ncclWindow_t>(handle));
      else
        ncclCommDeregister(comm_, handle);
  }
  NcclRegistration(const NcclRegistration&) = delete;
  NcclRegistration& operator=(const NcclRegistration&) = delete;

  void add(Buffer& buffer) {
    void* handle = nullptr;
    const std::size_t bytes = std::max<std::size_t>(buffer.bytes(), 1);
    if (kind_ == BufferRegistration::symmetric) {
      ncclWindow_t window = nullptr;
      check(ncclCommWindowRegister(comm_, buffer.data(), bytes, &window, NCCL_WIN_COLL_SYMMETRIC),
            "ncclCommWindowRegister");
      handle = window;
    } else {
      check(ncclCommRegister(comm_, buffer.data(), bytes, &handle), "ncclCommRegister");
    }
    handles_.push_back(handle);
  }

 private:
  ncclComm_t comm_;
  BufferRegistration kind_;
  std::vector<void*> handles_;
};

// GPU time between two events on the communication stream.
class EventTimer final : public Timer {
 public:
  explicit EventTimer(NcclCommunicator& comm) : comm_(comm) {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start() override { check(cudaEventRecord(start_, comm_.stream()), "cudaEventRecord"); }
  double stop_seconds() override {
    check(cudaEventRecord(stop_, comm_.stream()), "cudaEventRecord");
    comm_.wait();
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  NcclCommunicator& comm_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// `count` calls of the launches captured once as a CUDA graph (-G), replayed per sample. Streams
// that follow this one (Communicator::follow: an event between them) join the capture, so a
// composed collective's steps on other communicators are captured too.
class GraphBatch final : public Batch {
 public:
  GraphBatch(cudaStream_t stream, const std::function<void()>& launches, int count)
      : stream_(stream) {
    check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
          "cudaStreamBeginCapture");
    try {
      for (int i = 0; i < count; ++i) launches();
    } catch (...) {
      cudaGraph_t discarded = nullptr;
      cudaStreamEndCapture(stream_, &discarded);
      if (discarded) cudaGraphDestroy(discarded);
      throw;
    }
    check(cudaStreamEndCapture(stream_, &graph_), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  }
  ~GraphBatch() override {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  GraphBatch(const GraphBatch&) = delete;
  GraphBatch& operator=(const GraphBatch&) = delete;

  void enqueue() override { check(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch"); }

 private:
  cudaStream_t stream_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

NcclCommunicator::NcclCommunicator(ncclComm_t comm, const BackendOptions& options)
    : comm_(comm), options_(options) {
  check(ncclCommUserRank(comm_, &rank_), "ncclCommUserRank");
  check(ncclCommCount(comm_, &size_), "ncclCommCount");
  // The greatest priority: an overlap load launched first (thousands of blocks, several waves)
  // would otherwise hold the SMs, and NCCL's blocks would start near its tail, serialised.
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest),
        "cudaStreamCreateWithPriority");
  check(cudaEventCreateWithFlags(&followed_, cudaEventDisableTiming), "cudaEventCreate");
  std::lock_guard lock(g_live_mutex);
  g_live.push_back(comm_);
}

NcclCommunicator::~NcclCommunicator() {
  bool aborted = false;
  {
    std::lock_guard lock(g_live_mutex);
    g_live.erase(std::remove(g_live.begin(), g_live.end(), comm_), g_live.end());
    aborted = g_aborted;
  }
  if (!aborted) {
    cudaStreamSynchronize(stream_);
    ncclCommDestroy(comm_);
  }
  cudaEventDestroy(followed_);
  cudaStreamDestroy(stream_);
  cudaFree(control_device_);
  cudaFreeHost(control_host_);
}

std::unique_ptr<Buffer> NcclCommunicator::allocate(std::size_t bytes) {
  return std::make_unique<DeviceBuffer>(bytes, stream_);
}

std::unique_ptr<Registration> NcclCommunicator::register_buffers(Buffer& send, Buffer& recv) {
  if (options_.buffer_registration == BufferRegistration::none) return nullptr;
  auto registration = std::make_unique<NcclRegistration>(comm_, options_.buffer_registration);
  registration->add(send);
  registration->add(recv);
  return registration;
}

std::unique_ptr<Timer> NcclCommunicator::make_timer() { return std::make_unique<EventTimer>(*this); }

void NcclCommunicator::follow(Communicator& earlier) {
  auto* other = dynamic_cast<NcclCommunicator*>(&earlier);
  if (!other || other == this) return;
  // The wait takes the event as recorded now, so one event serves every follow().
  check(cudaEventRecord(followed_, other->stream_), "cudaEventRecord");
  check(cudaStreamWaitEvent(stream_, followed_, 0), "cudaStreamWaitEvent");
}

std::unique_ptr<OverlapLoad> NcclCommunicator::make_load(LoadKind kind, const LoadSite&) {
  return make_gpu_load(kind);
}

void NcclCommunicator::launch(const CollectiveCall& call, Buffer& send, Buffer& recv) {
  const ncclDataType_t type = datatype_of(call.datatype);
  const Shape& shape = call.shape;
  const std::size_t element = size_of(call.datatype);
  // In place, NCCL reads an allgather's share from, and writes a reduce-scatter's share to,
  // rank × share of the one buffer.
  std::byte* input =
      send.data() + (call.in_place ? in_place_send_offset(call.kind, rank_, shape) * element : 0);
  std::byte* output = call.in_place
                          ? send.data() + in_place_recv_offset(call.kind, rank_, shape) * element
                          : recv.data();
  switch (call.kind) {
    case CollectiveKind::allreduce:
      check(ncclAllReduce(input, output, shape.count, type, op_of(call.op), comm_, stream_),
            "ncclAllReduce");
      return;
    case CollectiveKind::allgather:
      check(ncclAllGather(input, output, shape.count, type, comm_, stream_), "ncclAllGather");
      return;
    case CollectiveKind::reduce_scatter:
      check(ncclReduceScatter(input, output, shape.count, type, op_of(call.op), comm_, stream_),
            "ncclReduceScatter");
      return;
    case CollectiveKind::alltoall:
      check(ncclAlltoAll(input, output, shape.count, type, comm_, stream_), "ncclAlltoAll");
      return;
    case CollectiveKind::broadcast:
      check(ncclBroadcast(input, output, shape.count, type, call.root, comm_, stream_),
            "ncclBroadcast");
      return;
    case CollectiveKind::reduce:
      check(ncclReduce(input, output, shape.count, type, op_of(call.op), call.root, comm_, stream_),
            "ncclReduce");
      return;
    case CollectiveKind::gather:
      check(ncclGather(input, output, shape.count, type, call.root, comm_, stream_), "ncclGather");
      return;
    case CollectiveKind::scatter:
      check(ncclScatter(input, output, shape.count, type, call.root, comm_, stream_),
            "ncclScatter");
      return;
    case CollectiveKind::sendrecv: {
      // nccl-tests' sendrecv.cu: one group, a send to rank + 1 and a receive from rank − 1.
      const int next = (rank_ + 1) % size_, previous = (rank_ + size_ - 1) % size_;
      check(ncclGroupStart(), "ncclGroupStart");
      check(ncclSend(input, shape.count, type, next, comm_, stream_), "ncclSend");
      check(ncclRecv(output, shape.count, type, previous, comm_, stream_), "ncclRecv");
      check(ncclGroupEnd(), "ncclGroupEnd");
      return;
    }
    case CollectiveKind::allreduce_hier:
      break;
  }
  throw std::invalid_argument("NCCL composes no hierarchical allreduce (Backend::supports)");
}

// Every launch above passes shape.count to NCCL and sends from inside `send`. NCCL's profiler
// reports the count of its task, which for an allgather and a broadcast is in bytes
// (src/enqueue.cc, collTaskAppend: count *= elementSize, datatype ncclInt8; src/plugin/
// profiler.cc, ncclProfilerStartTaskEvents: coll.count = ct->count). An alltoall, a gather and a
// scatter are sends and receives (src/enqueue.cc, taskAppend), and so is a sendrecv, reported as
// such: no collective event, no choice.
LibraryChoice NcclCommunicator::library_choice(const CollectiveCall& call, Buffer& send, Buffer&) {
  const bool in_bytes =
      call.kind == CollectiveKind::allgather || call.kind == CollectiveKind::broadcast;
  return take_choice(send.data(), send.bytes(),
                     call.shape.count * (in_bytes ? size_of(call.datatype) : 1));
}

std::unique_ptr<Batch> NcclCommunicator::batch(std::function<void()> launches, int count) {
  if (!options_.cuda_graphs) return Communicator::batch(std::move(launches), count);
  return std::make_unique<GraphBatch>(stream_, launches, count);
}

void NcclCommunicator::poison(const PatternRule& rule, Buffer& result) {
  enqueue_poison(rule, result.data(), stream_);
  wait();
}

void NcclCommunicator::copy(Buffer& to, const Buffer& from, std::size_t bytes) {
  // Buffer::data() is non-const for the library calls; the copy only reads `from`.
  check(cudaMemcpyAsync(to.data(), const_cast<Buffer&>(from).data(), bytes,
                        cudaMemcpyDeviceToDevice, stream_),
        "cudaMemcpyAsync");
}

void NcclCommunicator::fill_input(const PatternRule& rule, Buffer& send, std::size_t offset_bytes) {
  enqueue_fill(rule, send.data() + offset_bytes, stream_);
  wait();
}

std::uint64_t NcclCommunicator::count_wrong(const PatternRule& rule, const Buffer& result,
                                            std::size_t offset_bytes) {
  reserve_control(sizeof(unsigned long long));
  auto* counter = reinterpret_cast<unsigned long long*>(control_device_);
  check(cudaMemsetAsync(counter, 0, sizeof(*counter), stream_), "cudaMemsetAsync");
  // Buffer::data() is non-const for the library calls; counting only reads.
  auto& readable = const_cast<Buffer&>(result);
  enqueue_count_wrong(rule, readable.data() + offset_bytes, counter, stream_);
  unsigned long long wrong = 0;
  std::memcpy(&wrong, stage_out(control_device_, sizeof(wrong)), sizeof(wrong));
  return wrong;
}

void NcclCommunicator::wait() {
  for (;;) {
    {
      std::lock_guard lock(g_live_mutex);
      if (g_aborted) throw CommunicationFault("the communicator was aborted");
      const cudaError_t state = cudaStreamQuery(stream_);
      if (state == cudaSuccess) return;
      // cudaErrorNotReady is no error, and not the thread's last error either: nothing to
      // clear before the next launch's check (tests/standin/CONFORMANCE.md, cudaStreamQuery).
      if (state != cudaErrorNotReady) check(state, "waiting for the GPU");
      // Every live communicator, not this one only: this stream may wait, through an event, on
      // another's (the hierarchy's node and rail steps), which would hang until the watchdog.
      for (ncclComm_t comm : g_live) {
        ncclResult_t async = ncclSuccess;
        check(ncclCommGetAsyncError(comm, &async), "ncclCommGetAsyncError");
        if (async == ncclSuccess || async == ncclInProgress) continue;
        const std::string detail = ncclGetLastError(comm);
        abort_live_communicators();
        throw CommunicationFault(fmt::format("asynchronous NCCL error: {}{}{}",
                                             ncclGetErrorString(async),
                                             detail.empty() ? "" : ": ", detail));
      }
    }
    std::this_thread::yield();
  }
}

void NcclCommunicator::reserve_control(std::size_t bytes) {
  if (bytes <= control_bytes_) return;
  cudaFree(control_device_);
  cudaFreeHost(control_host_);
  control_device_ = nullptr;
  control_host_ = nullptr;
  control_bytes_ = 0;
  check(cudaMalloc(&control_device_, bytes), "cudaMalloc");
  check(cudaMallocHost(&control_host_, bytes), "cudaMallocHost");
  control_bytes_ = bytes;
}

void NcclCommunicator::barrier() { sum_over_ranks(0); }

void NcclCommunicator::stage_in(std::span<const std::byte> host, std::byte* device) {
  std::memcpy(control_host_, host.data(), host.size());
  check(cudaMemcpyAsync(device, control_host_, host.size(), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync");
}

const std::byte* NcclCommunicator::stage_out(const std::byte* device, std::size_t bytes) {
  check(cudaMemcpyAsync(control_host_, device, bytes, cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync");
  wait();
  return control_host_;
}

void NcclCommunicator::broadcast_bytes(std::span<std::byte> data, int root) {
  reserve_control(data.size());
  stage_in(data, control_device_);
  check(ncclBroadcast(control_device_, control_device_, data.size(), ncclUint8, root, comm_, stream_),
        "ncclBroadcast");
  std::memcpy(data.data(), stage_out(control_device_, data.size()), data.size());
}

void NcclCommunicator::gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all,
                                    int root) {
  // An allgather: NCCL has no gather, and the few bytes cost the same either way.
  const std::size_t total = mine.size() * std::size_t(size_);
  reserve_control(total + mine.size());
  std::byte* in = control_device_ + total;
  stage_in(mine, in);
  check(ncclAllGather(in, control_device_, mine.size(), ncclUint8, comm_, stream_), "ncclAllGather");
  const std::byte* gathered = stage_out(control_device_, total);
  if (rank_ == root) std::memcpy(all.data(), gathered, total);
}

void NcclCommunicator::reduce_control(std::span<std::byte> values, std::size_t count,
                                      ncclDataType_t type, ncclRedOp_t op) {
  reserve_control(values.size());
  stage_in(values, control_device_);
  check(ncclAllReduce(control_device_, control_device_, count, type, op, comm_, stream_),
        "ncclAllReduce");
  std::memcpy(values.data(), stage_out(control_device_, values.size()), values.size());
}

void NcclCommunicator::sum_int64(std::span<std::int64_t> values) {
  reduce_control(std::as_writable_bytes(values), values.size(), ncclInt64, ncclSum);
}

void NcclCommunicator::max_double(std::span<double> values) {
  reduce_control(std::as_writable_bytes(values), values.size(), ncclFloat64, ncclMax);
}

void NcclCommunicator::send_bytes(std::span<const std::byte> data, int peer) {
  reserve_control(data.size());
  stage_in(data, control_device_);
  check(ncclSend(control_device_, data.size(), ncclUint8, peer, comm_, stream_), "ncclSend");
  wait();
}

void NcclCommunicator::receive_bytes(std::span<std::byte> data, int peer) {
  reserve_control(data.size());
  check(ncclRecv(control_device_, data.size(), ncclUint8, peer, comm_, stream_), "ncclRecv");
  std::memcpy(data.data(), stage_out(control_device_, data.size()), data.size());
}

std::unique_ptr<Communicator> NcclCommunicator::split(int color, int key) {
  ncclComm_t part = nullptr;
  check(ncclCommSplit(comm_, color == kNoColor ? NCCL_SPLIT_NOCOLOR : color, key, &part, nullptr),
        "ncclCommSplit");
  if (!part) return nullptr;
  return std::make_unique<NcclCommunicator>(part, options_);
}

std::unique_ptr<Communicator> NcclCommunicator::split_node() {
  constexpr std::size_t kIdBytes = 256;
  std::string mine = nccl_host_identity();
  mine.resize(kIdBytes, '\0');
  const std::size_t total = kIdBytes * std::size_t(size_);
  reserve_control(total + kIdBytes);
  std::byte* in = control_device_ + total;
  stage_in(std::as_bytes(std::span(mine)), in);
  check(ncclAllGather(in, control_device_, kIdBytes, ncclUint8, comm_, stream_), "ncclAllGather");
  const std::byte* identities = stage_out(control_device_, total);
  int color = rank_;  // the first rank with this identity names the node
  for (int r = 0; r < size_; ++r)
    if (std::memcmp(identities + std::size_t(r) * kIdBytes, mine.data(), kIdBytes) == 0) {
      color = r;
      break;
    }
  return split(color, rank_);
}

void abort_all_communicators() noexcept {
  std::lock_guard lock(g_live_mutex);
  if (!g_aborted) abort_live_communicators();
}

}  // namespace collbench::nccl
