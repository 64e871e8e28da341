#include "harness/cli/job_start.h"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "backends/registry.h"
#include "harness/errors.h"
#include "harness/measure/fault_guard.h"
#include "harness/provenance/launcher.h"
#include "topo/discovery.h"

namespace collbench {

void require_built_backend(const std::string& backend) {
  const auto built = built_backends();
  if (std::find(built.begin(), built.end(), backend) == built.end())
    throw UsageError(fmt::format("--backend: '{}' is not built into this collbench (built: {})",
                                 backend, fmt::join(built, ", ")));
}

JobStart::JobStart(std::string command) : command_(std::move(command)), rank_(launcher_rank()) {}

void JobStart::watch(const Watchdog& watchdog) const {
  install_fault_guard(fmt::format("rank {} on {}", rank_.value_or(0), this_host()), watchdog);
}

int JobStart::start_libraries(std::string_view input, std::string_view libraries,
                              const std::function<void()>& start,
                              const std::function<void()>& drop_started) const {
  int exit_code = kExitOk;
  const std::string starting = fmt::format("starting {}", libraries);
  try {
    CommunicationWait wait(starting.c_str());
    start();
  } catch (const BackendUnavailable& error) {
    if (may_print())
      fmt::print(stderr, "collbench {}: {}{}{}\n", command_, input, input.empty() ? "" : ": ",
                 error.what());
    exit_code = kExitUsage;
  } catch (const std::exception& error) {  // a library failed to start: a fault, not input
    fmt::print(stderr, "collbench {}: rank {} on {}: could not start {}: {}\n", command_,
               rank_.value_or(0), this_host(), libraries, error.what());
    exit_code = kExitFault;
  }
  if (exit_code != kExitOk) {
    drop_started();
    end_failed_start();
  }
  return exit_code;
}

int JobStart::start_backend(const std::string& name, const BackendOptions& options,
                            std::unique_ptr<Backend>& backend) const {
  return start_libraries(fmt::format("--backend {}", name), fmt::format("the {} backend", name),
                         [&] { backend = collbench::start_backend(name, options); });
}

int JobStart::refuse_lone_process(std::string_view why) const {
  fmt::print(stderr, "collbench {}: started without mpirun/srun? {}\n", command_, why);
  return kExitUsage;
}

}  // namespace collbench
