#pragma once
#include <cstddef>
#include <optional>

namespace collbench {

// MemAvailable from /proc/meminfo: what this host can still give without swapping.
std::optional<std::size_t> available_host_memory_bytes();

}  // namespace collbench
