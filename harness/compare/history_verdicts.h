#pragma once
// `compare` against a history of launches (nightly files; launch_verdicts.h says why launches).
// Per point, log median = level + change + launch effect, and the history's spread is taken over
// its launches since its last change point and its curve's (trend's change_points.h, on the
// point's medians and on the curve's shift per launch), so that an old level does not widen
// tonight's interval. The part of the spread the curve's points share is the larger of the
// window's and the whole history's successive flips (launch_verdicts.h, successive_effect): a
// host that moves between states leaves its trace in every window. A point missing from a launch
// is judged on the others.
//
// Nightly: tonight against the window's level, the geometric mean of its n medians; the change's
// standard error is s √(1 + 1/n) (tonight's launch effect and the level's uncertainty).
// A single pair judged with a history's spread (`compare --history DIR BASE NEW`): NEW against
// BASE, two single launches, s √2, the spread over all the history's launches (a change of level
// there is its curve's shift, taken out of each point's own spread).
#include <span>
#include <vector>

#include "harness/compare/launch_verdicts.h"
#include "harness/plan/point.h"
#include "harness/stats/no_value.h"

namespace collbench {

struct LaunchHistory {
  PointKey key;
  std::vector<double> medians_s;  // the point's median in each launch of the history, oldest first
  double tonight_s = 0;           // its median in the launch judged
  double base_s = kNoValue;       // a BASE to judge against, the history lending its spread only;
                                  // none: against the history's level
};

// One verdict per point, in order.
std::vector<LaunchVerdict> judge_against_history(std::span<const LaunchHistory> points,
                                                 const CompareOptions& options);

// `compare` with a history: each matched pair's point judged with its medians in `history` (older
// files, oldest first, where the point is found by its key), NEW's median being tonight's. With
// `base_in_history` BASE is the history's newest launch (the nightly case), else a launch of its
// own that NEW is judged against.
LaunchComparison compare_to_history(std::span<const PointResult> base,
                                    std::span<const PointResult> now, const PointMatch& match,
                                    const CompareOptions& options,
                                    std::span<const std::vector<PointResult>> history,
                                    bool base_in_history);

}  // namespace collbench
