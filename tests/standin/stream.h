#pragma once
// Streams are ordered queues run by a thread each; events are host instants taken when their
// stream reaches them; a stream being captured records its work into a graph instead, and a
// launched graph enqueues that work again.
#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "device.h"

namespace standin {

using Work = std::function<void()>;

}  // namespace standin

struct CUstream_st;

// Work in the order the host enqueued it, on the origin stream and on every stream that joined
// its capture by waiting on an event recorded in it: a valid order of the captured graph.
struct CUgraph_st {
  int device;
  std::vector<standin::Work> work;
  std::vector<CUstream_st*> joined;  // while capturing: the streams that joined, origin first
};

struct CUgraphExec_st {
  int device;
  std::vector<standin::Work> work;
};

struct CUstream_st {
  CUstream_st(int device, bool blocking);
  ~CUstream_st();

  // Runs `work` after everything enqueued before it, or records it when capturing.
  void enqueue(standin::Work work);
  bool idle();
  void synchronize();

  const int device;
  const bool blocking;
  int priority = 0;  // recorded, not scheduled by: the stand-in has no SMs to share
  // Capture: the graph being recorded, its mode, and the thread that began it.
  CUgraph_st* capture = nullptr;
  cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal;
  std::thread::id capture_thread;
  // While capturing: how much of each joined stream's captured work this stream's depends on,
  // its own included (its count of captured work), through events. Empty outside a capture.
  std::map<const CUstream_st*, std::uint64_t> depends_on;

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<standin::Work> queue_;
  std::uint64_t enqueued_ = 0;
  std::uint64_t done_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

struct CUevent_st {
  int device;
  bool timing;
  std::mutex mutex;
  std::condition_variable reached_changed;
  std::uint64_t recorded = 0;  // records asked for
  std::uint64_t reached = 0;   // records their stream has reached
  double seconds = 0;          // the host instant of the last one reached
  CUstream_st* stream = nullptr;
  // The capture its last record was made in: a stream that waits on it joins that capture, and
  // depends on the captured work its stream had then.
  CUgraph_st* captured_in = nullptr;
  std::map<const CUstream_st*, std::uint64_t> captured_work;
};

namespace standin {

// The stream a call names: the per-device legacy stream for 0, cudaStreamLegacy and
// cudaStreamPerThread; a violation for a stream of another device than the current one.
CUstream_st* stream_of(cudaStream_t stream, std::string_view call);
double host_seconds();
// Waits for every stream of `device`, the legacy one included: cudaDeviceSynchronize and
// cudaFree (CUDA Programming Guide: cudaFree "causes the GPU to synchronize across all
// executing CUDA streams").
void synchronize_device(int device);

// Synchronous calls a capture forbids: a violation when one would run while `stream` (or, with
// null, any stream this thread or, in global mode, any thread) is capturing.
void forbid_during_capture(std::string_view call, CUstream_st* stream = nullptr);
void capture_began(CUstream_st* stream);
void capture_ended(CUstream_st* stream);

}  // namespace standin
