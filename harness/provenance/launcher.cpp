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

namespace {

std::optional<bool> switch_variable(const char* variable) {
  const char* value = std::getenv(variable);
  if (!value) return std::nullopt;
  const std::string text(value);
  return text == "1" || text == "true" || text == "yes" || text == "on";
}

}  // namespace

bool ranks_yield_when_idle() {
  if (const auto yield = switch_variable("OMPI_MCA_mpi_yield_when_idle")) return *yield;
  return switch_variable("OMPI_MCA_mpi_oversubscribe").value_or(false);
}

}  // namespace collbench
