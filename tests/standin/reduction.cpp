#include "reduction.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace standin {
namespace {

// Integers combine as their unsigned kin (wrapping, as on the GPU); floats as float or double.
template <typename T>
struct Arithmetic {
  using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
  static Wide widen(T x) { return static_cast<Wide>(x); }
  static T narrow(Wide x) { return T(x); }
};

template <>
struct Arithmetic<__half> {
  using Wide = float;
  static float widen(__half x) { return __half2float(x); }
  static __half narrow(float x) { return __float2half_rn(x); }
};

template <>
struct Arithmetic<__nv_bfloat16> {
  using Wide = float;
  static float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __nv_bfloat16 narrow(float x) { return __float2bfloat16_rn(x); }
};

template <typename T>
T load(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

template <typename T>
void store(std::byte* at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

template <typename T>
void reduce_integers(ncclRedOp_t op, int nranks, const std::byte* const* inputs, std::byte* out,
                     std::size_t count) {
  using U = std::make_unsigned_t<T>;
  for (std::size_t i = 0; i < count; ++i) {
    T acc = load<T>(inputs[0] + i * sizeof(T));
    for (int r = 1; r < nranks; ++r) {
      const T x = load<T>(inputs[r] + i * sizeof(T));
      switch (op) {
        case ncclSum:
        case ncclAvg:
          acc = static_cast<T>(static_cast<U>(acc) + static_cast<U>(x));
          break;
        case ncclProd:
          acc = static_cast<T>(static_cast<U>(acc) * static_cast<U>(x));
          break;
        case ncclMin:
          acc = x < acc ? x : acc;
          break;
        case ncclMax:
          acc = x > acc ? x : acc;
          break;
        default:
          break;
      }
    }
    if (op == ncclAvg) acc = static_cast<T>(acc / static_cast<T>(nranks));
    store(out + i * sizeof(T), acc);
  }
}

template <typename T>
void reduce_floats(ncclRedOp_t op, int nranks, const std::byte* const* inputs, std::byte* out,
                   std::size_t count) {
  using A = Arithmetic<T>;
  using W = typename A::Wide;
  const T scale = A::narrow(W(1) / static_cast<W>(nranks));
  auto input = [&](int r, std::size_t i) {
    const T x = load<T>(inputs[r] + i * sizeof(T));
    return op == ncclAvg ? A::narrow(A::widen(x) * A::widen(scale)) : x;
  };
  for (std::size_t i = 0; i < count; ++i) {
    T acc = input(0, i);
    for (int r = 1; r < nranks; ++r) {
      const W a = A::widen(acc), x = A::widen(input(r, i));
      switch (op) {
        case ncclSum:
        case ncclAvg:
          acc = A::narrow(a + x);
          break;
        case ncclProd:
          acc = A::narrow(a * x);
          break;
        case ncclMin:
          acc = A::narrow(x < a ? x : a);
          break;
        case ncclMax:
          acc = A::narrow(x > a ? x : a);
          break;
        default:
          break;
      }
    }
    store(out + i * sizeof(T), acc);
  }
}

}  // namespace

void reduce(ncclDataType_t type, ncclRedOp_t op, int nranks, const std::byte* const* inputs,
            std::byte* out, std::size_t count) {
  switch (type) {
    case ncclInt8:
      return reduce_integers<std::int8_t>(op, nranks, inputs, out, count);
    case ncclUint8:
      return reduce_integers<std::uint8_t>(op, nranks, inputs, out, count);
    case ncclInt32:
      return reduce_integers<std::int32_t>(op, nranks, inputs, out, count);
    case ncclUint32:
      return reduce_integers<std::uint32_t>(op, nranks, inputs, out, count);
    case ncclInt64:
      return reduce_integers<std::int64_t>(op, nranks, inputs, out, count);
    case ncclUint64:
      return reduce_integers<std::uint64_t>(op, nranks, inputs, out, count);
    case ncclFloat16:
      return reduce_floats<__half>(op, nranks, inputs, out, count);
    case ncclFloat32:
      return reduce_floats<float>(op, nranks, inputs, out, count);
    case ncclFloat64:
      return reduce_floats<double>(op, nranks, inputs, out, count);
    case ncclBfloat16:
      return reduce_floats<__nv_bfloat16>(op, nranks, inputs, out, count);
    case ncclFloat8e4m3:
      return reduce_floats<__nv_fp8_e4m3>(op, nranks, inputs, out, count);
    case ncclFloat8e5m2:
      return reduce_floats<__nv_fp8_e5m2>(op, nranks, inputs, out, count);
    default:
      return;
  }
}

}  // namespace standin
