#include "cuda_memory.h"

#include <stdexcept>

#include <cuda_runtime.h>
#include <fmt/format.h>

namespace collbench::ucx {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {}", call, cudaGetErrorString(status)));
}

class CudaBuffer final : public MessageBuffer {
 public:
  CudaBuffer(std::size_t bytes, std::byte fill) : bytes_(bytes) {
    if (bytes == 0) return;
    check(cudaMalloc(&data_, bytes), "cudaMalloc");
    check(cudaMemset(data_, static_cast<int>(fill), bytes), "cudaMemset");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  ~CudaBuffer() override { cudaFree(data_); }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  std::span<std::byte> bytes() override { return {static_cast<std::byte*>(data_), bytes_}; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

}  // namespace

std::string why_no_cuda_memory() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess) return fmt::format("no GPU usable here ({})", cudaGetErrorString(status));
  if (devices == 0) return "no GPU here";
  return {};
}

std::unique_ptr<MessageBuffer> cuda_buffer(std::size_t bytes, std::byte fill) {
  return std::make_unique<CudaBuffer>(bytes, fill);
}

}  // namespace collbench::ucx
