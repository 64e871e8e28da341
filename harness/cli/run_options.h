#pragma once
// `collbench run`: its options as typed, and the validated configuration they make.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli/output_options.h"
#include "harness/cli/sampling_options.h"
#include "harness/cli/size_options.h"
#include "harness/measure/run_config.h"

namespace collbench {

// What the user typed, before validation.
struct RunOptions {
  SizeOptions sizes{.min_bytes = "8", .max_bytes = "64M", .step_factor = 2};
  SamplingOptions sampling;
  int check_iters = 1;
  std::string datatypes = "float";
  std::string reduce_ops = "sum";
  int cuda_graph_launches = 0;
  int local_register = 0;  // -R, nccl-tests' name and numbers
  std::string sync = "window";
  std::string overlap_load;  // empty: none
  std::string keep_samples = "capped";
  std::string collectives = "allreduce,allgather,reduce_scatter";
  int root = 0;
  std::string backend;
  std::string mode = "both";
  std::string placement;  // empty: world, unless --ranks is given
  std::string rank_counts;
  std::string spread = "packed";
  bool in_place = false;
  OutputOptions output;
  std::string output_json;  // -J: nccl-tests' JSON too
  double time_limit_s = 0;
  bool quiet = false;
  bool progress = false;
  bool no_fit = false;
  std::vector<std::string> crossover_sizes;
  std::string nccl_algorithms;
  std::string nccl_protocols;
  int local_ranks = 0;
  bool virtual_nodes = false;
  bool allow_single_rank = false;
  // nccl-tests' -g (GPUs per process), -t (threads per process) and -a (how the time is
  // averaged over ranks): taken where they mean what collbench does, explained where not.
  std::optional<int> gpus_per_process;
  std::optional<int> threads_per_process;
  std::optional<int> rank_average;
};

void add_run_options(CLI::App& command, RunOptions& options);

// Throws UsageError naming the option and the value that is wrong.
RunConfig resolve(const RunOptions& options, const std::string& default_backend);

}  // namespace collbench
