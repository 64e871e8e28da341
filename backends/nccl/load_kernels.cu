#include "load_kernels.h"

#include "load_kernels.cuh"
#include "nccl_check.h"

namespace collbench::nccl {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 8192;

}  // namespace

void enqueue_stream(float* to, const float* from, std::size_t elements, cudaStream_t stream) {
  std::size_t blocks = (elements + kThreads - 1) / kThreads;
  blocks = blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks;
  stream_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(to, from, elements);
  check(cudaGetLastError(), "the stream load's kernel");
}

void enqueue_gemm(const float* a, const float* b, float* c, int m, int stride,
                  cudaStream_t stream) {
  const dim3 threads(kGemmTile, kGemmTile);
  const dim3 blocks(m / kGemmTile, m / kGemmTile);
  gemm_kernel<<<blocks, threads, 0, stream>>>(a, b, c, m, stride);
  check(cudaGetLastError(), "the gemm load's kernel");
}

}  // namespace collbench::nccl
