// The host build of collbench's kernels: the same sources nvcc compiles for the GPU.
// clang-format off
#include "device_emulation.h"  // first: what it defines comes before any CUDA header
// clang-format on
#include <cstdint>
#include <tuple>
#include <typeinfo>
#include <utility>

#include "backends/nccl/load_kernels.cuh"
#include "backends/nccl/pattern_kernels.cuh"
#include "kernels.h"
#include "memory.h"
#include "stream.h"
#include "violation.h"

namespace standin {
namespace {

// A kernel reads and writes through the stand-in's view of device memory; a pointer to
// pageable host memory is one a GPU cannot follow.
template <typename T>
T bound_argument(T value, std::size_t index, const std::string& kernel) {
  if constexpr (std::is_pointer_v<T>) {
    if (value == nullptr) return value;
    const auto held = allocation_holding(value);
    if (!held)
      violation("cudaLaunchKernel",
                "argument {} of {} = {} is pageable host memory, which the GPU "
                "cannot reach",
                index, kernel, fmt::ptr(value));
    const std::string argument = fmt::format("argument {} of {}", index, kernel);
    return reinterpret_cast<T>(
        view_of(held, value, 0, current_device(), "cudaLaunchKernel", argument.c_str()));
  } else {
    return value;
  }
}

template <typename... A, std::size_t... I>
KernelBinder binder(void (*kernel)(A...), std::string name, bool synchronises_block,
                    std::index_sequence<I...>) {
  return [=](void** arguments) {
    std::tuple<std::decay_t<A>...> values{
        bound_argument(*static_cast<std::decay_t<A>*>(arguments[I]), I, name)...};
    return [=](const KernelLaunch& launch) {
      run_grid(launch, synchronises_block, [&] { std::apply(kernel, values); });
    };
  };
}

template <typename... A>
void add(void (*kernel)(A...), std::string name, bool synchronises_block = false) {
  KernelBinder bind = binder(kernel, name, synchronises_block, std::index_sequence_for<A...>{});
  add_host_kernel(std::move(name), std::move(bind));
}

// As the demangler spells a template argument: "signed char", "__half".
template <typename T>
std::string type_name() {
  return demangled(typeid(T).name());
}

[[maybe_unused]] const bool registered = [] {
  using namespace collbench;
  for (DataType type : all_datatypes())
    nccl::visit_device_type(type, [](auto zero) {
      using T = decltype(zero);
      add(&nccl::fill_kernel<T>, "fill_kernel<" + type_name<T>() + ">");
      add(&nccl::count_wrong_kernel<T>, "count_wrong_kernel<" + type_name<T>() + ">");
    });
  [](auto... bits) {
    (add(&nccl::poison_kernel<decltype(bits)>, "poison_kernel<" + type_name<decltype(bits)>() + ">"),
     ...);
  }(std::uint8_t{}, std::uint16_t{}, std::uint32_t{}, std::uint64_t{});
  add(&nccl::stream_kernel, "stream_kernel");
  add(&nccl::gemm_kernel, "gemm_kernel", /*synchronises_block=*/true);
  return true;
}();

}  // namespace
}  // namespace standin
