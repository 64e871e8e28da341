#pragma once
// The overlap loads' kernels, compiled by nvcc for the GPU (load_kernels.cu) and by the host
// compiler for the CI stand-in of the CUDA runtime (tests/standin).
#include <cstddef>

#include "load_kernels.h"

namespace collbench::nccl {

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

}  // namespace collbench::nccl
