#pragma once
// The validated run: what `collbench run` measures and where it writes, every list expanded and
// every size parsed (harness/cli/run_options.h makes it from the command line).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backends/buffer_registration.h"
#include "backends/overlap_load.h"
#include "backends/tuning.h"
#include "collectives/collective_kind.h"
#include "collectives/datatype.h"
#include "harness/measure/sampling.h"
#include "harness/plan/output_file.h"
#include "harness/plan/point.h"
#include "harness/plan/sample_retention.h"
#include "harness/plan/sizes.h"
#include "harness/plan/sweep_plan.h"
#include "topo/placement.h"

namespace collbench {

struct RunConfig {
  SweepSpec sweep;
  std::vector<std::size_t> sizes;
  std::vector<CollectiveKind> collectives;
  int root = 0;  // of a collective with a root (has_root), a rank of each communicator (-r)
  std::vector<DataType> datatypes;
  std::vector<ReduceOp> reduce_ops;
  bool every_datatype = false;  // -d all: the backend's types, not an error for the others
  bool every_reduce_op = false;
  std::vector<Mode> modes;
  std::vector<bool> in_place;  // false, then true with --inplace
  std::string backend;
  std::vector<Placement> placements;    // world, intra, inter
  std::vector<int> rank_counts;         // --ranks: sub-communicator sizes
  bool rank_counts_pow2 = false;        // --ranks pow2: 2, 4, ... up to the job's size
  Placement subset_placement = Placement::packed;  // of --ranks: packed or spread
  // The library's own choice first, then every pinned combination.
  std::vector<Tuning> tunings{Tuning{}};
  // -G N: a sample's operations are one CUDA graph, and a bandwidth sample launches it N times
  // (nccl-tests' -G); 0: no graphs.
  int cuda_graph_launches = 0;
  BufferRegistration buffer_registration = BufferRegistration::none;  // -R
  int local_ranks = 0;  // --np: start this many ranks here, without MPI
  bool virtual_nodes = false;
  bool allow_single_rank = false;  // one rank started without a launcher runs anyway
  int check_iters = 1;
  Sampling sampling;
  SampleStart latency_start = SampleStart::window;
  std::optional<LoadKind> overlap_load;  // --overlap-load
  std::optional<double> time_limit_s;
  OutputFile output;
  std::optional<std::filesystem::path> nccl_tests_json;  // -J: written from the file at the end
  bool quiet = false;
  bool progress = false;
  bool fit = true;
  std::vector<double> crossover_sizes;
  KeepSamples keep_samples = KeepSamples::capped;
};

// Points per row: modes × the in-place variants the row runs.
inline std::size_t points_per_row(const RunConfig& config, const PlannedRow& row) {
  return config.modes.size() * (row.out_of_place_only ? 1 : config.in_place.size());
}

}  // namespace collbench
