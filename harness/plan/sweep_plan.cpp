#include "sweep_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "collectives/pattern_rule.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

// The distinct shapes the requested sizes give; a size too small for one element per rank
// is dropped, and sizes that round to the same shape run once.
std::vector<Shape> shapes_for(const SweepRequest& request, CollectiveKind kind, DataType type,
                              int nranks, std::vector<std::string>& notes) {
  std::vector<Shape> shapes;
  std::size_t dropped = 0;
  for (std::size_t requested : request.sizes) {
    const Shape shape = shape_for(kind, requested, size_of(type), nranks);
    if (shape.count == 0) {
      ++dropped;
      continue;
    }
    if (shapes.empty() || shapes.back().size_bytes != shape.size_bytes) shapes.push_back(shape);
  }
  if (dropped)
    notes.push_back(fmt::format("{} {}: {} size(s) below {} skipped (less than one element per "
                                "rank with {} ranks)",
                                name(kind), name(type), dropped,
                                format_size(smallest_size(kind, size_of(type), nranks)),
                                nranks));
  return shapes;
}

// Validation needs inputs whose result is exact; say so where the pattern has none.
void note_unchecked(const SweepRequest& request, CollectiveKind kind, DataType type, ReduceOp op,
                    const Shape& shape, int nranks, std::vector<std::string>& notes) {
  if (!request.validated ||
      PatternRule(PatternCase{kind, type, op, 0, nranks, shape}).exact())
    return;
  notes.push_back(fmt::format("{} {} {} with {} ranks is not validated (#wrong N/A): no input "
                              "makes it exact{}",
                              name(kind), name(type), name(op), nranks,
                              op == ReduceOp::avg && is_floating(type)
                                  ? " (NCCL multiplies by a rounded 1/p unless p is a power of two)"
                                  : ""));
}

}  // namespace

SweepPlan plan_sweep(const SweepRequest& request, int nranks) {
  SweepPlan plan;
  plan.nranks = nranks;
  for (CollectiveKind kind : request.collectives) {
    if (has_root(kind) && request.root >= nranks) {
      plan.notes.push_back(fmt::format("{} with {} ranks: root {} is none of them; skipped",
                                       name(kind), nranks, request.root));
      continue;
    }
    const int root = root_of(kind, request.root);
    const std::vector<ReduceOp> ops =
        uses_reduce_op(kind) ? request.reduce_ops : std::vector<ReduceOp>{ReduceOp::sum};
    for (DataType type : request.datatypes) {
      const auto shapes = shapes_for(request, kind, type, nranks, plan.notes);
      for (ReduceOp op : ops) {
        if (!shapes.empty())
          note_unchecked(request, kind, type, op, shapes.front(), nranks, plan.notes);
        for (const Shape& shape : shapes) plan.rows.push_back({kind, type, op, shape, root});
      }
    }
  }
  return plan;
}

BufferSizes buffers_for(const SweepPlan& plan) {
  const std::size_t first_call = sizeof(float) * static_cast<std::size_t>(plan.nranks);
  BufferSizes sizes{first_call, first_call};
  for (const PlannedRow& row : plan.rows) {
    const std::size_t element = size_of(row.datatype);
    const std::size_t send = row.shape.send_count * element;
    const std::size_t recv = row.shape.recv_count * element;
    sizes = covering(sizes, {std::max(send, recv), recv});
  }
  return sizes;
}

BufferSizes covering(const BufferSizes& a, const BufferSizes& b) {
  return {std::max(a.send_bytes, b.send_bytes), std::max(a.recv_bytes, b.recv_bytes)};
}

}  // namespace collbench
