#include "stream.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "violation.h"

namespace standin {
namespace {

std::atomic<int> g_global_captures{0};
thread_local int t_captures = 0;

// Every stream alive, the legacy ones included, for synchronize_device.
std::mutex g_streams_mutex;
std::set<CUstream_st*> g_streams;

}  // namespace

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

CUstream_st* stream_of(cudaStream_t stream, std::string_view call) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<CUstream_st>> legacy;
    std::lock_guard lock(mutex);
    auto& found = legacy[current_device()];
    if (!found) found = std::make_unique<CUstream_st>(current_device(), true);
    return found.get();
  }
  if (stream->device != current_device())
    violation(call, "stream {} belongs to device {}, the current device is {}", fmt::ptr(stream),
              stream->device, current_device());
  return stream;
}

void synchronize_device(int device) {
  std::lock_guard lock(g_streams_mutex);  // no stream is made or destroyed meanwhile
  for (CUstream_st* stream : g_streams)
    if (stream->device == device) stream->synchronize();
}

void forbid_during_capture(std::string_view call, CUstream_st* stream) {
  if (stream && stream->capture)
    violation(call,
              "stream {} is being captured into a graph (cudaStreamBeginCapture): a "
              "synchronous call would end the capture with an error on a GPU",
              fmt::ptr(stream));
  if (!stream && (t_captures > 0 || g_global_captures > 0))
    violation(call,
              "a stream is being captured into a graph (cudaStreamBeginCapture): this "
              "synchronous call is forbidden until cudaStreamEndCapture");
}

void capture_began(CUstream_st* stream) {
  if (stream->capture_mode == cudaStreamCaptureModeGlobal) ++g_global_captures;
  if (stream->capture_mode != cudaStreamCaptureModeRelaxed) ++t_captures;
}

void capture_ended(CUstream_st* stream) {
  if (stream->capture_mode == cudaStreamCaptureModeGlobal) --g_global_captures;
  if (stream->capture_mode != cudaStreamCaptureModeRelaxed) --t_captures;
}

}  // namespace standin

CUstream_st::CUstream_st(int device_, bool blocking_)
    : device(device_), blocking(blocking_), worker_([this] { run(); }) {
  std::lock_guard lock(standin::g_streams_mutex);
  standin::g_streams.insert(this);
}

CUstream_st::~CUstream_st() {
  {
    std::lock_guard lock(standin::g_streams_mutex);
    standin::g_streams.erase(this);
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void CUstream_st::enqueue(standin::Work work) {
  if (capture) {
    capture->work.push_back(std::move(work));
    ++depends_on[this];
    return;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
    ++enqueued_;
  }
  changed_.notify_all();
}

bool CUstream_st::idle() {
  std::lock_guard lock(mutex_);
  return done_ == enqueued_;
}

void CUstream_st::synchronize() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return done_ == enqueued_; });
}

void CUstream_st::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;
    standin::Work work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    work();
    lock.lock();
    ++done_;
    changed_.notify_all();
  }
}
