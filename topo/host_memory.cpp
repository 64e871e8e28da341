#include "host_memory.h"

#include <fstream>
#include <string>

namespace collbench {

std::optional<std::size_t> available_host_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

}  // namespace collbench
