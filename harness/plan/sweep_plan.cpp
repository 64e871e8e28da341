#include "sweep_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "benches/collectives/pattern_rule.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

// The distinct shapes the requested sizes give; a size too small for one element per rank
// is dropped, and sizes that round to the same shape run once.
std::vector<Shape> shapes_for(const RunConfig& config, CollectiveKind kind, DataType type,
                              int nranks, std::vector<std::string>& notes) {
  std::vector<Shape> shapes;
  std::size_t dropped = 0;
  for (std::size_t requested : config.sizes) {
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
                                format_size((kind == CollectiveKind::allreduce ? 1 : nranks) *
                                            size_of(type)),
                                nranks));
  return shapes;
}

// Validation needs inputs whose result is exact; say so where the pattern has none.
void note_unchecked(const RunConfig& config, CollectiveKind kind, DataType type, ReduceOp op,
                    const Shape& shape, int nranks, std::vector<std::string>& notes) {
  if (config.check_iters == 0 ||
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

SweepPlan plan_sweep(const RunConfig& config, int nranks) {
  SweepPlan plan;
  for (CollectiveKind kind : config.collectives) {
    const std::vector<ReduceOp> ops =
        uses_reduce_op(kind) ? config.reduce_ops : std::vector<ReduceOp>{ReduceOp::sum};
    for (DataType type : config.datatypes) {
      const auto shapes = shapes_for(config, kind, type, nranks, plan.notes);
      for (ReduceOp op : ops) {
        if (!shapes.empty()) note_unchecked(config, kind, type, op, shapes.front(), nranks, plan.notes);
        for (const Shape& shape : shapes) {
          plan.rows.push_back({kind, type, op, shape});
          const std::size_t bytes = size_of(type);
          plan.max_send_bytes = std::max(plan.max_send_bytes, shape.send_count * bytes);
          plan.max_recv_bytes = std::max(plan.max_recv_bytes, shape.recv_count * bytes);
        }
      }
    }
  }
  return plan;
}

std::size_t points_per_row(const RunConfig& config) {
  return config.modes.size() * config.in_place.size();
}

}  // namespace collbench
