#include "launcher.h"

#include <cstdlib>
#include <string>

namespace collbench {

std::optional<int> launcher_rank() {
  for (const char* variable : {"COLLBENCH_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                               "SLURM_PROCID"})
    if (const char* value = std::getenv(variable)) {
      try {
        return std::stoi(value);
      } catch (const std::exception&) {
      }
    }
  return std::nullopt;
}

}  // namespace collbench
