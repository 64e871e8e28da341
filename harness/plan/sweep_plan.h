#pragma once
// The rows of a sweep, in the order they run and print: collective, datatype, reduction op,
// size. Each row is measured in every mode and in-place variant of the run.
#include <string>
#include <vector>

#include "benches/collectives/collective.h"
#include "benches/datatype.h"
#include "harness/cli/run_options.h"

namespace collbench {

struct PlannedRow {
  CollectiveKind collective = CollectiveKind::allreduce;
  DataType datatype = DataType::float32;
  ReduceOp op = ReduceOp::sum;  // ignored by allgather
  Shape shape;
};

struct SweepPlan {
  std::vector<PlannedRow> rows;
  std::vector<std::string> notes;  // sizes skipped or merged, for the user
  std::size_t max_send_bytes = 0;
  std::size_t max_recv_bytes = 0;
};

SweepPlan plan_sweep(const RunConfig& config, int nranks);

// Points per row: modes × in-place variants.
std::size_t points_per_row(const RunConfig& config);

}  // namespace collbench
