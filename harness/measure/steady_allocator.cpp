#include "harness/measure/steady_allocator.h"

#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace collbench {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

std::string_view allocator_policy() {
#if defined(__GLIBC__)
  return "glibc malloc: no mmap (M_MMAP_MAX 0), no trim (M_TRIM_THRESHOLD INT_MAX)";
#else
  return "the C library's default";
#endif
}

}  // namespace collbench
