#include "gpu_load.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "load_kernels.h"
#include "nccl_check.h"

namespace collbench::nccl {
namespace {

// 2 × 256 MiB streamed: far past the L2 cache (50 MiB on an H100/H200).
constexpr std::size_t kStreamElements = std::size_t{64} << 20;
constexpr std::size_t kFewestStreamElements = std::size_t{1} << 16;
// Square matrices of 2,048: 17 GFLOP a multiply at most, from 128 at the smallest block.
constexpr int kLargestGemm = 2048;
constexpr int kCalibrationGemm = 1024;

class GpuLoad final : public OverlapLoad {
 public:
  explicit GpuLoad(LoadKind kind) : kind_(kind) {
    int device = 0, mps = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device), "cudaDeviceGetAttribute");
    placement_ = fmt::format(
        "{} on a stream of its own, below the collective's in priority{}",
        kind == LoadKind::memory ? "a stream kernel" : "a tiled matrix multiply",
        mps ? "; under MPS the ranks' loads share this GPU, so 'the load alone' is every rank's "
              "load at once"
            : "");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&end_), "cudaEventCreate");
    const std::size_t elements = kind == LoadKind::memory
                                     ? kStreamElements
                                     : std::size_t{kLargestGemm} * kLargestGemm;
    const int buffers = kind == LoadKind::memory ? 2 : 3;
    for (int i = 0; i < buffers; ++i) {
      float* data = nullptr;
      check(cudaMalloc(&data, elements * sizeof(float)), "cudaMalloc (the overlap load)");
      check(cudaMemsetAsync(data, 0, elements * sizeof(float), stream_), "cudaMemsetAsync");
      buffers_.push_back(data);
    }
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  ~GpuLoad() override {
    cudaStreamSynchronize(stream_);
    for (float* data : buffers_) cudaFree(data);
    cudaEventDestroy(start_);
    cudaEventDestroy(end_);
    cudaStreamDestroy(stream_);
  }

  GpuLoad(const GpuLoad&) = delete;
  GpuLoad& operator=(const GpuLoad&) = delete;

  void size_for(double seconds) override {
    passes_ = 1;
    if (kind_ == LoadKind::memory) {
      elements_ = kStreamElements;
      const double whole = timed_alone();
      if (seconds < whole)
        elements_ = std::max(kFewestStreamElements,
                             static_cast<std::size_t>(kStreamElements * (seconds / whole)));
      else
        passes_ = passes_for(seconds, whole);
    } else {
      // A multiply's time grows as the cube of its side.
      gemm_side_ = kCalibrationGemm;
      const double calibration = timed_alone();
      const double side = kCalibrationGemm * std::cbrt(seconds / calibration);
      gemm_side_ = std::clamp(static_cast<int>(std::lround(side / kGemmTile)) * kGemmTile,
                              kGemmTile, kLargestGemm);
      if (gemm_side_ == kLargestGemm) passes_ = passes_for(seconds, timed_alone());
    }
  }

  void start() override {
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    for (int pass = 0; pass < passes_; ++pass) {
      if (kind_ == LoadKind::memory)
        enqueue_stream(buffers_[pass % 2], buffers_[1 - pass % 2], elements_, stream_);
      else
        enqueue_gemm(buffers_[0], buffers_[1], buffers_[2], gemm_side_, kLargestGemm, stream_);
    }
    check(cudaEventRecord(end_, stream_), "cudaEventRecord");
  }

  double finish_seconds() override {
    check(cudaEventSynchronize(end_), "cudaEventSynchronize (the overlap load)");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, end_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

  std::string_view placement() const override { return placement_; }

 private:
  // The unit as now sized, run twice alone (the first brings the data in): the second's time.
  double timed_alone() {
    start();
    finish_seconds();
    start();
    return finish_seconds();
  }

  LoadKind kind_;
  std::string placement_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t end_ = nullptr;
  std::vector<float*> buffers_;
  std::size_t elements_ = kStreamElements;
  int gemm_side_ = kCalibrationGemm;
  int passes_ = 1;
};

}  // namespace

std::unique_ptr<OverlapLoad> make_gpu_load(LoadKind kind) {
  return std::make_unique<GpuLoad>(kind);
}

}  // namespace collbench::nccl
