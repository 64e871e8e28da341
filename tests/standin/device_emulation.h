#pragma once
// What a kernel's source expects of the GPU, for its host build: the launch's coordinates per
// host thread, shared memory per block (the blocks of a grid run one after another on one
// thread), __syncthreads and atomicAdd. Included before any CUDA header.
#define __shared__ static thread_local
#define __DEVICE_LAUNCH_PARAMETERS_H__  // its extern const coordinates are defined here instead
#include <cuda_runtime_api.h>

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

namespace standin {
void block_barrier();
}

inline void __syncthreads() { standin::block_barrier(); }

inline unsigned long long atomicAdd(unsigned long long* address, unsigned long long value) {
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
