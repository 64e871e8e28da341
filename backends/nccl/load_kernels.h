#pragma once
// The GPU's overlap loads (gpu_load.h): a kernel streaming device memory, and a matrix
// multiply tiled through shared memory. Written here rather than taken from cuBLAS, which the
// GPU machines are not known to have; both are what they stand for, memory-bound and
// compute-bound, and the run reports their rates.
#include <cuda_runtime.h>

#include <cstddef>

namespace collbench::nccl {

// to[i] = from[i] · 1.0001f + 1 for i < elements.
void enqueue_stream(float* to, const float* from, std::size_t elements, cudaStream_t stream);

// c = a · b on the leading m × m blocks of row-major matrices with `stride` columns; m a
// multiple of kGemmTile.
inline constexpr int kGemmTile = 16;
void enqueue_gemm(const float* a, const float* b, float* c, int m, int stride,
                  cudaStream_t stream);

}  // namespace collbench::nccl
