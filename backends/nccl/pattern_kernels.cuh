#pragma once
// The validation kernels' source, compiled by nvcc for the GPU (pattern_kernels.cu) and by the
// host compiler for the CI stand-in of the CUDA runtime (tests/standin), which runs the same
// code on the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collectives/pattern_rule.h"
#include "collectives/datatype.h"

namespace collbench::nccl {

template <typename T>
__device__ T from_integer(std::int64_t value) {
  if constexpr (std::is_arithmetic_v<T>)
    return static_cast<T>(value);
  else
    return T(static_cast<float>(value));  // exact: the pattern's integers are small
}

// Bit equality: the pattern never makes NaN or -0, and bits compare every type alike.
template <typename T>
__device__ bool same_bits(const T& a, const T& b) {
  using Bits = std::conditional_t<
      sizeof(T) == 1, std::uint8_t,
      std::conditional_t<sizeof(T) == 2, std::uint16_t,
                         std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  Bits x, y;
  memcpy(&x, &a, sizeof(T));
  memcpy(&y, &b, sizeof(T));
  return x == y;
}

template <typename T>
__global__ void fill_kernel(PatternRule rule, T* out) {
  const std::size_t n = rule.input_count();
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(blockDim.x) * gridDim.x)
    out[i] = from_integer<T>(rule.input(i));
}

// `bits` is the poison's bits as an unsigned integer of the element's size: written as that
// integer, no conversion can change them.
template <typename Bits>
__global__ void poison_kernel(std::size_t n, Bits bits, Bits* out) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(blockDim.x) * gridDim.x)
    out[i] = bits;
}

template <typename T>
__global__ void count_wrong_kernel(PatternRule rule, const T* got, unsigned long long* wrong) {
  const std::size_t n = rule.result_count();
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(blockDim.x) * gridDim.x)
    mine += !same_bits(got[i], from_integer<T>(rule.expected(i)));
  if (mine) atomicAdd(wrong, mine);
}

// Calls f with a value of the device type that holds `type`: the host's C++ type
// (visit_datatype), or CUDA's for the reduced-precision floats.
template <typename F>
void visit_device_type(DataType type, F&& f) {
  switch (type) {
    case DataType::float16: return f(__half{});
    case DataType::bfloat16: return f(__nv_bfloat16{});
    case DataType::float8_e4m3: return f(__nv_fp8_e4m3{});
    case DataType::float8_e5m2: return f(__nv_fp8_e5m2{});
    default: return visit_datatype(type, f);
  }
}

}  // namespace collbench::nccl
