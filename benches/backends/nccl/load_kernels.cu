#include "load_kernels.h"

#include "nccl_check.h"

namespace collbench::nccl {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 8192;

__global__ void stream_kernel(float* to, const float* from, std::size_t elements) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < elements;
       i += std::size_t(blockDim.x) * gridDim.x)
    to[i] = from[i] * 1.0001f + 1.0f;
}

__global__ void gemm_kernel(const float* a, const float* b, float* c, int m, int stride) {
  __shared__ float a_tile[kGemmTile][kGemmTile];
  __shared__ float b_tile[kGemmTile][kGemmTile];
  const int row = blockIdx.y * kGemmTile + threadIdx.y;
  const int column = blockIdx.x * kGemmTile + threadIdx.x;
  float sum = 0;
  for (int k = 0; k < m; k += kGemmTile) {
    a_tile[threadIdx.y][threadIdx.x] = a[row * stride + k + threadIdx.x];
    b_tile[threadIdx.y][threadIdx.x] = b[(k + threadIdx.y) * stride + column];
    __syncthreads();
    for (int i = 0; i < kGemmTile; ++i) sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    __syncthreads();
  }
  c[row * stride + column] = sum;
}

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
