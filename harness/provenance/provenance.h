#pragma once
// Everything needed to reproduce or explain a run, as the result file's root attributes.
#include <string>
#include <vector>

#include "harness/measure/run_config.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"

namespace collbench {

// How the ranks sat (topo/binding.h): its summary, and the warning printed when they did not sit
// one a core, spinning (absent then).
inline constexpr const char* kBinding = "binding";
inline constexpr const char* kBindingWarning = "binding_warning";
// The step the ranks' timers read durations in (harness/measure/timer_step.h), in picoseconds.
inline constexpr const char* kTimerStepPs = "timer_step_ps";

std::string shell_quoted(const std::vector<std::string>& argv);

// What every job records, `run` and `links` alike: the command, versions, the library measured,
// Slurm's job, ranks and hosts, and the environment variables that change behaviour.
Provenance job_provenance(const std::vector<std::string>& argv, const std::string& backend,
                          const std::string& backend_version, const JobTopology& topology,
                          const std::string& start_utc);

// job_provenance and how `run` measured, the ranks' binding judged.
Provenance collect_provenance(const RunConfig& config, const std::vector<std::string>& argv,
                              const std::string& backend_version, const JobTopology& topology,
                              const std::string& start_utc);

}  // namespace collbench
