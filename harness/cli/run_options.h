#pragma once
// `collbench run`: its options as typed, and the validated configuration they make.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "benches/backends/tuning.h"
#include "benches/collective_kind.h"
#include "benches/datatype.h"
#include "harness/measure/fault_guard.h"
#include "harness/plan/point.h"
#include "harness/plan/sizes.h"
#include "harness/stats/stopping_rule.h"
#include "topo/placement.h"

namespace collbench {

// Three rounds: the fewest that give the spread between rounds two degrees of freedom, so that
// a point's interval can include it; each round gets a third of the point's time budget.
inline constexpr int kDefaultRounds = 3;

// What the user typed, before validation.
struct RunOptions {
  std::string min_bytes = "8";
  std::string max_bytes = "64M";
  double step_factor = 2;
  std::optional<std::string> step_bytes;
  std::optional<long long> iters;
  int warmup_iters = 5;
  int check_iters = 1;
  std::string datatypes = "float";
  std::string reduce_ops = "sum";
  int cuda_graph_launches = 0;
  std::optional<double> timeout_s;
  std::string sync = "window";
  std::string collectives = "allreduce,allgather,reduce_scatter";
  std::string backend;
  std::string mode = "both";
  std::string placement;  // empty: world, unless --ranks is given
  std::string rank_counts;
  std::string spread = "packed";
  bool in_place = false;
  std::string out;
  bool force = false;
  std::optional<int> rounds;  // default: kDefaultRounds, or 1 with -n
  long long min_samples = 10;
  double min_time_s = 0;
  double target_ci = 0.01;
  double max_time_s = 1.0;
  double time_limit_s = 0;
  bool quiet = false;
  bool progress = false;
  bool no_fit = false;
  std::vector<std::string> crossover_sizes;
  std::string nccl_algorithms;
  std::string nccl_protocols;
  int local_ranks = 0;
  bool virtual_nodes = false;
};

void add_run_options(CLI::App& command, RunOptions& options);

// The validated run: every list expanded, every size parsed.
struct RunConfig {
  SweepSpec sweep;
  std::vector<std::size_t> sizes;
  std::vector<CollectiveKind> collectives;
  std::vector<DataType> datatypes;
  std::vector<ReduceOp> reduce_ops;
  bool every_datatype = false;  // -d all: the backend's types, not an error for the others
  bool every_reduce_op = false;
  std::vector<Mode> modes;
  std::vector<bool> in_place;  // false, then true with --inplace
  std::string backend;
  std::vector<std::string> placements;  // world, intra, inter
  std::vector<int> rank_counts;         // --ranks: sub-communicator sizes
  bool rank_counts_pow2 = false;        // --ranks pow2: 2, 4, ... up to the job's size
  Spread spread = Spread::packed;
  // The library's own choice first, then every pinned combination.
  std::vector<Tuning> tunings{Tuning{}};
  bool cuda_graphs = false;
  int local_ranks = 0;  // --np: start this many ranks here, without MPI
  bool virtual_nodes = false;
  int warmup_iters = 5;
  int check_iters = 1;
  Watchdog watchdog;
  SampleStart latency_start = SampleStart::window;
  // Interleaved rounds per point (DESIGN.md, "Stopping"); `stopping` is the whole point's rule.
  int rounds = kDefaultRounds;
  StoppingRule stopping;
  std::optional<double> time_limit_s;
  std::filesystem::path out;
  bool default_out = false;
  bool force = false;
  bool quiet = false;
  bool progress = false;
  bool fit = true;
  std::vector<double> crossover_sizes;
};

// Throws UsageError naming the option and the value that is wrong.
RunConfig resolve(const RunOptions& options, const std::string& default_backend);

}  // namespace collbench
