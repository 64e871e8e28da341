// The CUDA runtime calls collbench makes, over host memory and stream threads (stream.h,
// memory.h, kernels.h). Compiled against the toolkit's cuda_runtime_api.h, so a signature that
// drifts from the real one fails the build.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels.h"
#include "memory.h"
#include "stream.h"
#include "violation.h"

using standin::current_device;
using standin::stream_of;

namespace {

thread_local cudaError_t t_last_error = cudaSuccess;
constexpr int kGreatestPriority = -5;  // an H100's range: 0 to -5

cudaError_t failed(cudaError_t error) {
  t_last_error = error;
  return error;
}

struct LaunchConfiguration {
  dim3 grid, block;
  std::size_t shared_bytes;
  cudaStream_t stream;
};
thread_local std::vector<LaunchConfiguration> t_configurations;

std::mutex g_kernels_mutex;
std::map<const void*, const char*> g_device_names;  // host stub -> mangled device name

// A host copy of an HtoD source, taken when the call is made: pageable memory may change
// once the call returns, as a GPU's staging copy also reads it at once.
std::shared_ptr<std::vector<std::byte>> snapshot(const void* from, std::size_t bytes) {
  auto copy = std::make_shared<std::vector<std::byte>>(bytes);
  std::memcpy(copy->data(), from, bytes);
  return copy;
}

cudaError_t copy_async(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind,
                       cudaStream_t stream, const char* call) {
  CUstream_st* s = stream_of(stream, call);
  const auto target = standin::allocation_holding(to);
  const auto source = standin::allocation_holding(from);
  const bool to_device = target && target->on_device();
  const bool from_device = source && source->on_device();
  const bool wants_to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool wants_from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind != cudaMemcpyDefault &&
      (to_device != wants_to_device || from_device != wants_from_device))
    standin::violation(call, "kind {} does not match the pointers: dst {} is {}, src {} is {}",
                       static_cast<int>(kind), fmt::ptr(to),
                       to_device ? "device memory" : "host memory", fmt::ptr(from),
                       from_device ? "device memory" : "host memory");
  std::byte* target_view = standin::view_of(target, to, bytes, current_device(), call, "dst");
  const std::byte* source_view =
      standin::view_of(source, from, bytes, current_device(), call, "src");
  if (!from_device && !source) {
    auto copy = snapshot(source_view, bytes);
    s->enqueue([=] { std::memcpy(target_view, copy->data(), bytes); });
  } else {
    s->enqueue([=] { std::memmove(target_view, source_view, bytes); });
  }
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  *count = standin::device_count();
  return *count > 0 ? cudaSuccess : failed(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device) {
  if (!standin::valid_device(device)) return failed(cudaErrorInvalidDevice);
  current_device() = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = current_device();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device) {
  if (!standin::valid_device(device)) return failed(cudaErrorInvalidDevice);
  *properties = cudaDeviceProp{};
  std::snprintf(properties->name, sizeof(properties->name), "collbench stand-in %d (host memory)",
                standin::physical_device(device));
  properties->major = 9;
  properties->minor = 0;
  properties->totalGlobalMem = standin::device_memory_bytes();
  properties->multiProcessorCount = 132;
  properties->pciBusID = standin::physical_device(device) + 1;
  properties->warpSize = 32;
  properties->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  if (!standin::valid_device(device)) return failed(cudaErrorInvalidDevice);
  const char* mps = std::getenv("COLLBENCH_STANDIN_MPS");
  switch (attribute) {
    case cudaDevAttrMpsEnabled:
      *value = mps && std::strcmp(mps, "1") == 0;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = 9;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = 0;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = 132;
      break;
    case cudaDevAttrPciBusId:
      *value = standin::physical_device(device) + 1;
      break;
    default:
      *value = 0;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
  if (!standin::valid_device(device)) return failed(cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<std::size_t>(length), "0000:%02X:00.0",
                standin::physical_device(device) + 1);
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  if (!standin::valid_device(device) || !standin::valid_device(peer))
    return failed(cudaErrorInvalidDevice);
  *can = device != peer;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  standin::forbid_during_capture("cudaDeviceSynchronize");
  standin::synchronize_device(current_device());
  return cudaSuccess;
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorStreamCaptureUnjoined:
      return "capturing stream has unjoined work";
    default:
      return "unknown error (collbench stand-in)";
  }
}

const char* cudaGetErrorName(cudaError_t error) { return cudaGetErrorString(error); }

cudaError_t cudaGetLastError(void) {
  const cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  return error;
}

cudaError_t cudaPeekAtLastError(void) { return t_last_error; }

cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  standin::forbid_during_capture("cudaMalloc");
  *pointer = standin::allocate(bytes, current_device(), standin::Allocator::cuda_malloc);
  return *pointer ? cudaSuccess : failed(cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* pointer) {
  if (!pointer) return cudaSuccess;
  standin::forbid_during_capture("cudaFree");
  standin::synchronize_device(current_device());
  standin::release(pointer, standin::Allocator::cuda_malloc, "cudaFree");
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** pointer, size_t bytes, unsigned int) {
  *pointer = standin::allocate(bytes, -1, standin::Allocator::cuda_host_alloc);
  return *pointer ? cudaSuccess : failed(cudaErrorMemoryAllocation);
}

cudaError_t cudaMallocHost(void** pointer, size_t bytes) {
  return cudaHostAlloc(pointer, bytes, 0);
}

cudaError_t cudaFreeHost(void* pointer) {
  if (!pointer) return cudaSuccess;
  standin::release(pointer, standin::Allocator::cuda_host_alloc, "cudaFreeHost");
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* to, const void* from, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return copy_async(to, from, bytes, kind, stream, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
  standin::forbid_during_capture("cudaMemcpy");
  copy_async(to, from, bytes, kind, nullptr, "cudaMemcpy");
  stream_of(nullptr, "cudaMemcpy")->synchronize();
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes, cudaStream_t stream) {
  CUstream_st* s = stream_of(stream, "cudaMemsetAsync");
  std::byte* view =
      standin::device_access(pointer, bytes, current_device(), "cudaMemsetAsync", "devPtr");
  s->enqueue([=] { std::memset(view, value, bytes); });
  return cudaSuccess;
}

// On the legacy stream, and asynchronous to the host for device memory (cuda_runtime_api.h, API
// synchronisation behaviour: "The cudaMemset functions are asynchronous with respect to the host
// except when the target memory is pinned host memory"): the caller must synchronise.
cudaError_t cudaMemset(void* pointer, int value, size_t bytes) {
  standin::forbid_during_capture("cudaMemset");
  return cudaMemsetAsync(pointer, value, bytes, nullptr);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  *stream = new CUstream_st(current_device(), !(flags & cudaStreamNonBlocking));
  (*stream)->priority = std::clamp(priority, kGreatestPriority, 0);
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  *priority = stream_of(stream, "cudaStreamGetPriority")->priority;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = kGreatestPriority;
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream->capture)
    standin::violation("cudaStreamDestroy", "stream {} is being captured", fmt::ptr(stream));
  delete stream;  // its thread finishes the queued work first, as a GPU does
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  CUstream_st* s = stream_of(stream, "cudaStreamQuery");
  standin::forbid_during_capture("cudaStreamQuery", s);
  // Not recorded as the thread's last error: CUDA Programming Guide, "Error Checking": the
  // cudaErrorNotReady of cudaStreamQuery and cudaEventQuery "is not considered an error and is
  // therefore not reported by cudaPeekAtLastError() or cudaGetLastError()".
  return s->idle() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  CUstream_st* s = stream_of(stream, "cudaStreamSynchronize");
  standin::forbid_during_capture("cudaStreamSynchronize", s);
  s->synchronize();
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  *event = new CUevent_st{};
  (*event)->device = current_device();
  (*event)->timing = !(flags & cudaEventDisableTiming);
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (!event) return cudaSuccess;
  {
    std::unique_lock lock(event->mutex);  // a record still queued would touch it
    event->reached_changed.wait(lock, [&] { return event->reached == event->recorded; });
  }
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  CUstream_st* s = stream_of(stream, "cudaEventRecord");
  if (event->device != s->device)
    standin::violation("cudaEventRecord", "event {} belongs to device {}, stream {} to device {}",
                       fmt::ptr(event), event->device, fmt::ptr(stream), s->device);
  std::uint64_t record = 0;
  {
    std::lock_guard lock(event->mutex);
    event->stream = s;
    event->captured_in = s->capture;
    // In a capture the record orders the streams that join it, nothing more: the graph's work
    // is replayed in one order that keeps it.
    if (s->capture) {
      event->captured_work = s->depends_on;
      return cudaSuccess;
    }
    record = ++event->recorded;
  }
  s->enqueue([event, record] {
    std::lock_guard lock(event->mutex);
    event->seconds = standin::host_seconds();
    event->reached = std::max(event->reached, record);
    event->reached_changed.notify_all();
  });
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  std::lock_guard lock(event->mutex);
  return event->reached == event->recorded ? cudaSuccess : cudaErrorNotReady;  // as a stream's
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  standin::forbid_during_capture("cudaEventSynchronize", event->stream);
  std::unique_lock lock(event->mutex);
  event->reached_changed.wait(lock, [&] { return event->reached == event->recorded; });
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!start->timing || !end->timing) return failed(cudaErrorInvalidResourceHandle);
  std::scoped_lock lock(start->mutex, end->mutex);
  if (start->recorded == 0 || end->recorded == 0) return failed(cudaErrorInvalidResourceHandle);
  if (start->reached != start->recorded || end->reached != end->recorded) return cudaErrorNotReady;
  // A GPU would answer, but with the two streams' clocks unrelated: no interval of one
  // stream's work, which is what every timer of a benchmark means.
  if (start->stream != end->stream)
    standin::violation("cudaEventElapsedTime",
                       "start {} was recorded on stream {}, end {} on "
                       "stream {}: the interval spans two streams",
                       fmt::ptr(start), fmt::ptr(start->stream), fmt::ptr(end),
                       fmt::ptr(end->stream));
  *ms = static_cast<float>((end->seconds - start->seconds) * 1e3);
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  CUstream_st* s = stream_of(stream, "cudaStreamWaitEvent");
  std::uint64_t record = 0;
  {
    std::lock_guard lock(event->mutex);
    if (CUgraph_st* graph = event->captured_in; graph && !graph->joined.empty()) {
      if (s->capture && s->capture != graph)
        standin::violation("cudaStreamWaitEvent", "stream {} is capturing another graph",
                           fmt::ptr(stream));
      if (!s->capture) {  // the stream joins the capture: its work from now on is the graph's
        s->capture = graph;
        s->capture_mode = graph->joined.front()->capture_mode;
        s->capture_thread = graph->joined.front()->capture_thread;
        graph->joined.push_back(s);
      }
      for (const auto& [stream, work] : event->captured_work)
        s->depends_on[stream] = std::max(s->depends_on[stream], work);
      return cudaSuccess;
    }
    record = event->recorded;
  }
  s->enqueue([event, record] {
    std::unique_lock lock(event->mutex);
    event->reached_changed.wait(lock, [&] { return event->reached >= record; });
  });
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  CUstream_st* s = stream_of(stream, "cudaStreamBeginCapture");
  if (stream == nullptr || stream == cudaStreamLegacy)
    standin::violation("cudaStreamBeginCapture", "the legacy stream cannot be captured");
  if (s->capture)
    standin::violation("cudaStreamBeginCapture", "stream {} is already being captured",
                       fmt::ptr(stream));
  s->capture = new CUgraph_st{s->device, {}, {s}};
  s->capture_mode = mode;
  s->capture_thread = std::this_thread::get_id();
  standin::capture_began(s);
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  CUstream_st* s = stream_of(stream, "cudaStreamEndCapture");
  if (!s->capture)
    standin::violation("cudaStreamEndCapture", "stream {} is not being captured", fmt::ptr(stream));
  if (s->capture_mode != cudaStreamCaptureModeRelaxed &&
      s->capture_thread != std::this_thread::get_id())
    standin::violation("cudaStreamEndCapture", "the capture of stream {} began on another thread",
                       fmt::ptr(stream));
  if (s->capture->joined.front() != s)
    standin::violation("cudaStreamEndCapture",
                       "stream {} joined a capture begun on stream {}: "
                       "only the origin ends it",
                       fmt::ptr(stream), fmt::ptr(s->capture->joined.front()));
  standin::capture_ended(s);
  CUgraph_st* captured = s->capture;
  // Every stream that joined must have joined back: the origin's last work depends on all of
  // theirs. Else the capture fails (CUDA Programming Guide, cross-stream dependencies: failing
  // to rejoin "will result in failure of the overall capture operation"; driver_types.h,
  // cudaErrorStreamCaptureUnjoined), every stream leaves it, and no graph is returned.
  const auto work_of = [](const CUstream_st* on, const CUstream_st* of) {
    const auto found = on->depends_on.find(of);
    return found == on->depends_on.end() ? std::uint64_t{0} : found->second;
  };
  const bool unjoined =
      std::any_of(captured->joined.begin() + 1, captured->joined.end(),
                  [&](const CUstream_st* joined) { return work_of(joined, joined) > work_of(s, joined); });
  for (CUstream_st* joined : captured->joined) {
    joined->capture = nullptr;
    joined->depends_on.clear();
  }
  captured->joined.clear();
  if (unjoined) {
    delete captured;
    *graph = nullptr;
    return failed(cudaErrorStreamCaptureUnjoined);
  }
  *graph = captured;
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  *status = stream_of(stream, "cudaStreamIsCapturing")->capture ? cudaStreamCaptureStatusActive
                                                                : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  *exec = new CUgraphExec_st{graph->device, graph->work};
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  CUstream_st* s = stream_of(stream, "cudaGraphLaunch");
  if (exec->device != s->device)
    standin::violation("cudaGraphLaunch", "graph of device {} launched on a stream of device {}",
                       exec->device, s->device);
  for (const standin::Work& work : exec->work) s->enqueue(work);
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}

// Kernels: nvcc's registration at start-up, then per launch the configuration pushed by <<<>>>,
// popped by the stub, and __cudaLaunchKernel with the arguments.
void** __cudaRegisterFatBinary(void* fat_cubin) { return static_cast<void**>(fat_cubin); }
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}

void __cudaRegisterFunction(void**, const char* host_function, char*, const char* device_name, int,
                            uint3*, uint3*, dim3*, dim3*, int*) {
  std::lock_guard lock(g_kernels_mutex);
  g_device_names[host_function] = device_name;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_function) {
  std::lock_guard lock(g_kernels_mutex);
  const auto found = g_device_names.find(host_function);
  if (found == g_device_names.end())
    standin::violation("__cudaGetKernel", "no kernel was registered for {}", host_function);
  *kernel = reinterpret_cast<cudaKernel_t>(
      const_cast<standin::KernelBinder*>(&standin::host_kernel(found->second, "cudaLaunchKernel")));
  return cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes,
                                     struct CUstream_st* stream) {
  t_configurations.push_back({grid, block, shared_bytes, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_bytes,
                                       void* stream) {
  const LaunchConfiguration c = t_configurations.back();
  t_configurations.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared_bytes = c.shared_bytes;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** arguments, size_t,
                               cudaStream_t stream) {
  CUstream_st* s = stream_of(stream, "cudaLaunchKernel");
  const auto* bind = reinterpret_cast<const standin::KernelBinder*>(kernel);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x * block.y * block.z == 0 ||
      block.x * block.y * block.z > 1024)
    return failed(cudaErrorInvalidConfiguration);
  auto run = (*bind)(arguments);
  const standin::KernelLaunch launch{grid, block};
  s->enqueue([run, launch] { run(launch); });
  return cudaSuccess;
}

}  // extern "C"
