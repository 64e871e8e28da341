#pragma once
// How many operations a bandwidth-mode sample loops: enough for the loop to last a target
// time, never fewer than nccl-tests-like back-to-back counts, sized from the median of several
// single operations so that one delayed operation cannot shrink the loop to a single op.
#include <optional>
#include <span>

namespace collbench {

struct LoopSizing {
  double target_s = 1e-3;
  int min_ops = 10;
  int max_ops = 1000;
  // Single operations timed before the loop is sized.
  int probes = 5;
  // Samples after which the loop is checked against the target, and how far off it may be.
  int check_after = 5;
  double tolerance = 4;
};

// The loop length for operations that take `op_times_s` each (their median counts).
int ops_for(std::span<const double> op_times_s, const LoopSizing& sizing);

// A new loop length when the samples so far (each a per-operation time) put the current one
// more than `tolerance` times off the target; nullopt while it is close enough.
std::optional<int> resized_loop(std::span<const double> per_op_times_s, int ops,
                                const LoopSizing& sizing);

}  // namespace collbench
