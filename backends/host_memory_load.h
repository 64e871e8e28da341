#pragma once
// The host's overlap load: a thread streaming three arrays larger than the caches
// (a[i] = b[i] + s·c[i], STREAM's triad), the memory-bound half of a CPU step's compute.
#include <memory>

#include "backends/overlap_load.h"

namespace collbench {

std::unique_ptr<OverlapLoad> make_host_memory_load(const LoadSite& site);

}  // namespace collbench
