#include "provenance.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/tuning.h"
#include "harness/measure/steady_allocator.h"
#include "harness/provenance/environment.h"
#include "harness/provenance/launcher.h"
#include "harness/provenance/version.h"
#include "topo/binding.h"

namespace collbench {
namespace {

std::string quote_one(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_=.,/:+@%") == std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

template <typename Range>
nlohmann::json names(const Range& values) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& value : values) list.push_back(std::string(name(value)));
  return list;
}

// The resolved settings, so a reader knows exactly how points were sampled.
std::string settings_json(const RunConfig& config) {
  nlohmann::ordered_json settings;
  settings["min_bytes"] = config.sweep.min_bytes;
  settings["max_bytes"] = config.sweep.max_bytes;
  if (config.sweep.step_bytes)
    settings["step_bytes"] = *config.sweep.step_bytes;
  else
    settings["step_factor"] = config.sweep.step_factor;
  settings["collectives"] = names(config.collectives);
  settings["datatypes"] = names(config.datatypes);
  settings["reduce_ops"] = names(config.reduce_ops);
  settings["modes"] = names(config.modes);
  settings["in_place"] = config.in_place.size() > 1;
  settings["placements"] = names(config.placements);
  if (config.rank_counts_pow2)
    settings["ranks"] = "pow2";
  else if (!config.rank_counts.empty())
    settings["ranks"] = config.rank_counts;
  settings["spread"] = name(config.subset_placement);
  std::vector<std::string> tunings;
  for (const auto& tuning : config.tunings)
    tunings.push_back(fmt::format("{}/{}", or_auto(tuning.algorithm), or_auto(tuning.protocol)));
  settings["nccl_tunings"] = tunings;
  settings["cuda_graph_launches"] = config.cuda_graph_launches;
  settings["buffer_registration"] = name(config.buffer_registration);
  settings["warmup_iters"] = config.sampling.warmup;
  settings["check_iters"] = config.check_iters;
  settings["timeout_s"] = config.sampling.watchdog.timeout_s;
  settings["timeout_grows_with_samples"] = config.sampling.watchdog.grows_with_samples;
  settings["latency_sync"] = name(config.latency_start);
  settings["overlap_load"] =
      config.overlap_load ? nlohmann::json(name(*config.overlap_load)) : nlohmann::json();
  settings["keep_samples"] = name(config.keep_samples);
  settings["rounds"] = config.sampling.rounds;
  settings["min_samples"] = config.sampling.stopping.min_samples;
  settings["min_time_s"] = config.sampling.stopping.min_time_s;
  settings["target_ci"] = config.sampling.stopping.target_ci;
  settings["max_time_s"] = config.sampling.stopping.max_time_s;
  if (config.sampling.stopping.fixed_samples) settings["iters"] = *config.sampling.stopping.fixed_samples;
  if (config.time_limit_s) settings["time_limit_s"] = *config.time_limit_s;
  return settings.dump();
}

}  // namespace

std::string shell_quoted(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) line += (line.empty() ? "" : " ") + quote_one(arg);
  return line;
}

void record_plausibility_bound(Provenance& provenance, const PlausibilityBound& bound) {
  for (const CopyRate& rate : bound.copy)
    provenance.integers[kPlausibilityCopyPrefix + std::to_string(rate.bytes)] =
        std::llround(rate.gbps * 1e3);
  provenance.integers[kPlausibilityEmptyCallPs] = std::llround(bound.empty_call_s * 1e12);
  provenance.integers[kPlausibilityMarginKey] = std::llround(kPlausibilityMargin);
}

PlausibilityBound plausibility_bound_of(const Provenance& provenance) {
  PlausibilityBound bound;
  for (const auto& [key, value] : provenance.integers) {
    if (key == kPlausibilityEmptyCallPs) bound.empty_call_s = static_cast<double>(value) * 1e-12;
    if (key.starts_with(kPlausibilityCopyPrefix))
      bound.copy.push_back({std::stoull(key.substr(std::strlen(kPlausibilityCopyPrefix))),
                            static_cast<double>(value) * 1e-3});
  }
  std::ranges::sort(bound.copy, {}, &CopyRate::bytes);
  return bound;
}

Provenance job_provenance(const std::vector<std::string>& argv, const std::string& backend,
                          const std::string& backend_version, const JobTopology& topology,
                          const std::string& start_utc) {
  Provenance provenance;
  auto& text = provenance.text;
  text["command_line"] = shell_quoted(argv);
  text["collbench_version"] = collbench_version();
  text["git_revision"] = git_revision();
  text["start_utc"] = start_utc;
  text["backend"] = backend;
  text["backend_version"] = backend_version;
  for (const auto& [attribute, variable] :
       {std::pair{"slurm_job_id", "SLURM_JOB_ID"}, {"slurm_step_id", "SLURM_STEP_ID"},
        {"slurm_job_nodelist", "SLURM_JOB_NODELIST"}, {"slurm_array_task_id", "SLURM_ARRAY_TASK_ID"},
        {"slurm_array_job_id", "SLURM_ARRAY_JOB_ID"}, {"slurm_partition", "SLURM_JOB_PARTITION"}})
    if (const char* value = std::getenv(variable)) text[attribute] = value;
  provenance.integers["nranks"] = static_cast<long long>(topology.ranks.size());
  provenance.integers["nodes"] = topology.nodes;
  provenance.integers["ranks_per_node"] = topology.max_ranks_per_node;
  provenance.hosts = topology.hosts;
  provenance.environment = recorded_environment();
  return provenance;
}

Provenance collect_provenance(const RunConfig& config, const std::vector<std::string>& argv,
                              const std::string& backend_version, const JobTopology& topology,
                              const std::string& start_utc) {
  Provenance provenance = job_provenance(argv, config.backend, backend_version, topology, start_utc);
  auto& text = provenance.text;
  text["placement"] = fmt::format("{}", fmt::join(names(config.placements), ","));
  text["settings_json"] = settings_json(config);
  text["allocator"] = allocator_policy();
  const BindingVerdict binding = judge_binding(topology.ranks, ranks_yield_when_idle());
  text[kBinding] = binding.summary;
  if (!binding.warning.empty()) text[kBindingWarning] = binding.warning;
  return provenance;
}

}  // namespace collbench
