#include "pattern_kernels.h"

#include "nccl_check.h"
#include "pattern_kernels.cuh"

namespace collbench::nccl {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 4096;

unsigned blocks_for(std::size_t elements) {
  const std::size_t blocks = (elements + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

}  // namespace

void enqueue_poison(const PatternRule& rule, void* result, cudaStream_t stream) {
  const std::size_t n = rule.poisoned_count();
  if (n == 0) return;
  const auto launch = [&](auto bits) {
    using Bits = decltype(bits);
    poison_kernel<Bits><<<blocks_for(n), kThreads, 0, stream>>>(n, bits, static_cast<Bits*>(result));
  };
  const std::uint64_t bits = rule.poison_bits();
  switch (size_of(rule.datatype())) {
    case 1: launch(static_cast<std::uint8_t>(bits)); break;
    case 2: launch(static_cast<std::uint16_t>(bits)); break;
    case 4: launch(static_cast<std::uint32_t>(bits)); break;
    default: launch(bits); break;
  }
  check(cudaGetLastError(), "the validation poison kernel");
}

void enqueue_fill(const PatternRule& rule, void* send, cudaStream_t stream) {
  if (rule.input_count() == 0) return;
  visit_device_type(rule.datatype(), [&](auto zero) {
    using T = decltype(zero);
    fill_kernel<T><<<blocks_for(rule.input_count()), kThreads, 0, stream>>>(rule, static_cast<T*>(send));
  });
  check(cudaGetLastError(), "the validation fill kernel");
}

void enqueue_count_wrong(const PatternRule& rule, const void* result,
                         unsigned long long* wrong_count, cudaStream_t stream) {
  if (rule.result_count() == 0) return;
  visit_device_type(rule.datatype(), [&](auto zero) {
    using T = decltype(zero);
    count_wrong_kernel<T><<<blocks_for(rule.result_count()), kThreads, 0, stream>>>(
        rule, static_cast<const T*>(result), wrong_count);
  });
  check(cudaGetLastError(), "the validation check kernel");
}

}  // namespace collbench::nccl
