#pragma once
// NCCL's own account of its choices: a profiler plugin (NCCL's ext-profiler interface, v5)
// built into collbench. NCCL looks it up in the executable when NCCL_PROFILER_PLUGIN is
// STATIC_PLUGIN, and reports the algorithm, protocol and channel count of every collective it
// launches; the recorder keeps a tally per send buffer and count until the point asks.
#include <cstddef>

#include "backends/library_choice.h"

namespace collbench::nccl {

// NCCL_PROFILER_PLUGIN's value that makes NCCL take the plugin from this executable.
inline constexpr const char* kBuiltInProfiler = "STATIC_PLUGIN";

// Communicators NCCL announced to the plugin: 0 when NCCL did not load it.
int profiled_communicators();

// The most frequent choice among the collectives recorded since the last take whose send
// buffer lies in [begin, begin + bytes) and that moved `count` elements; empty when none was.
// Forgets every recorded collective (the control plane's included).
LibraryChoice take_choice(const void* begin, std::size_t bytes, std::size_t count);

}  // namespace collbench::nccl
