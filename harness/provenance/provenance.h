#pragma once
// Everything needed to reproduce or explain a run, as the result file's root attributes.
#include <string>
#include <vector>

#include "harness/measure/run_config.h"
#include "harness/plan/plausibility.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"

namespace collbench {

// How the ranks sat (topo/binding.h): its summary, and the warning printed when they did not sit
// one a core, spinning (absent then).
inline constexpr const char* kBinding = "binding";
inline constexpr const char* kBindingWarning = "binding_warning";
// The step the ranks' timers read durations in (harness/measure/timer_step.h), in picoseconds.
inline constexpr const char* kTimerStepPs = "timer_step_ps";
// The plausibility bound (harness/plan/plausibility.h): the fastest copy of each size in MB/s,
// as plausibility_copy_MBps_at_<bytes>, the empty call in picoseconds, and the margin applied.
inline constexpr const char* kPlausibilityCopyPrefix = "plausibility_copy_MBps_at_";
inline constexpr const char* kPlausibilityEmptyCallPs = "plausibility_empty_call_ps";
inline constexpr const char* kPlausibilityMarginKey = "plausibility_margin";

std::string shell_quoted(const std::vector<std::string>& argv);

void record_plausibility_bound(Provenance& provenance, const PlausibilityBound& bound);
// The bound a run recorded; none where it recorded none (files before schema 19).
PlausibilityBound plausibility_bound_of(const Provenance& provenance);

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
