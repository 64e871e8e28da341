#pragma once
// Validation on the device: the pattern's inputs written, and its results checked, where the
// data lives, so a 256 MiB check costs a kernel rather than two PCIe copies and a host loop.
#include <cuda_runtime.h>

#include "collectives/pattern_rule.h"

namespace collbench::nccl {

void enqueue_poison(const PatternRule& rule, void* result, cudaStream_t stream);
void enqueue_fill(const PatternRule& rule, void* send, cudaStream_t stream);
// Adds the count of wrong result elements to *wrong_count (device memory).
void enqueue_count_wrong(const PatternRule& rule, const void* result,
                         unsigned long long* wrong_count, cudaStream_t stream);

}  // namespace collbench::nccl
