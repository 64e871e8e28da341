#pragma once
// `compare --interleaved A B`: A and B run as alternating fresh launches on one allocation (ABAB
// or ABBA: same nodes, same binding), the way a fabric or NCCL setting is judged before it goes to
// production. Launch i of A and launch i of B ran next to each other and share most of the host's
// state, so the pairs' differences d_i = log B_i − log A_i cancel it; the change is their mean
// over n pairs, judged against their spread (launch_verdicts.h), standard error s / √n. A pair
// whose launches saw different host states moves its curve's points together: that widens the
// shared part, not each point's own.
#include <span>
#include <vector>

#include "harness/compare/launch_verdicts.h"
#include "harness/plan/point.h"

namespace collbench {

struct LaunchPairs {
  PointKey key;
  std::vector<double> a_s, b_s;  // the point's median in each launch, pair by pair
};

// One verdict per point, in order.
std::vector<LaunchVerdict> judge_pairs(std::span<const LaunchPairs> points,
                                       const CompareOptions& options);

// Every point of `match` (A's first launch against B's first) judged over all the pairs: the
// files of A and of B in launch order, as many of each.
LaunchComparison compare_interleaved(std::span<const std::vector<PointResult>> a,
                                     std::span<const std::vector<PointResult>> b,
                                     const PointMatch& match, const CompareOptions& options);

}  // namespace collbench
