#pragma once
// The rows of a sweep, in the order they run and print: collective, datatype, reduction op,
// size. Each row is measured in every mode and in-place variant of the run.
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "collectives/datatype.h"

namespace collbench {

// What a sweep covers: every size of every collective, datatype and (for reductions) op.
struct SweepRequest {
  std::vector<std::size_t> sizes;  // requested, in bytes
  std::vector<CollectiveKind> collectives;
  std::vector<DataType> datatypes;
  std::vector<ReduceOp> reduce_ops;
  bool validated = true;  // results are checked (-c): say where no input makes them exact
  int root = 0;           // of the collectives that have one
};

struct PlannedRow {
  CollectiveKind collective = CollectiveKind::allreduce;
  DataType datatype = DataType::float32;
  ReduceOp op = ReduceOp::sum;  // ignored by what reduces nothing
  Shape shape;
  int root = kNoRoot;
  bool out_of_place_only = false;  // the backend runs it in place nowhere (--inplace skips it)
};

struct SweepPlan {
  int nranks = 0;  // of each communicator the rows run on
  std::vector<PlannedRow> rows;
  std::vector<std::string> notes;  // sizes skipped or merged, for the user
};

SweepPlan plan_sweep(const SweepRequest& request, int nranks);

// The two buffers every row of a plan fits in, and the communicator's first call (one float
// per rank): in place, the send buffer also holds the result, so it takes the larger.
struct BufferSizes {
  std::size_t send_bytes = 0;
  std::size_t recv_bytes = 0;
};
BufferSizes buffers_for(const SweepPlan& plan);
// Each side's larger: buffers that fit both.
BufferSizes covering(const BufferSizes& a, const BufferSizes& b);

}  // namespace collbench
