#pragma once
// A communication library's temporary buffers, allocated and freed inside every call (Open MPI
// 4.1.4's MPI_Reduce_scatter_block takes one of the message's size), must cost what they cost a
// long-running application, the same at every point of a sweep. glibc maps a large block afresh
// on each malloc and unmaps it on free, and only raises that threshold after the first free of
// one: measured on 2 ranks, reduce-scatter of 1 MiB took 3.8 ms in a run of that size alone and
// 0.17 ms inside a sweep that had freed larger blocks before it, 16 MiB took 72 ms against
// 5 ms, all of the difference page faults. So the process keeps what it frees.
#include <string_view>

namespace collbench {

// Serves every allocation from the heap and never gives freed memory back to the kernel (glibc:
// M_MMAP_MAX 0, M_TRIM_THRESHOLD unlimited). Call once, before the backend starts. Elsewhere
// it does nothing.
void keep_freed_memory();

// What keep_freed_memory did, for the result file's provenance.
std::string_view allocator_policy();

}  // namespace collbench
