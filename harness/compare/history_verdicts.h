#pragma once
// `compare` against a history of launches (nightly files; launch_verdicts.h says why launches).
// Tonight's level comes from the history's launches in tonight's host state (host_states.h):
// within one state, per point, log median = level + change + launch effect. A level may have
// changed within the history (an old regression, its fix): change points (trend's
// change_points.h) on the point's medians and on its curve's shift per launch, over tonight's
// state, cut it into segments; tonight's reference is the level of the last one. The spreads,
// the point's own and its curve's shared one, are pooled within every segment and within every
// other state: they come from all the launches, and not from those the change points chose for
// agreeing. A point missing from a launch is judged on the others.
//
// Nightly: the change is the mean log of the j launches judged (tonight; `trend`'s newest level)
// less the last segment's level over its n launches; its standard error per launch spread is
// √(1/j + 1/n). A single pair judged with a history's spread (`compare --history DIR BASE NEW`):
// NEW against BASE, two single launches, √2, the history lending its spread only; BASE must
// share NEW's state.
#include <span>
#include <vector>

#include "harness/compare/host_states.h"
#include "harness/compare/launch_verdicts.h"
#include "harness/plan/point.h"
#include "harness/stats/no_value.h"

namespace collbench {

struct LaunchHistory {
  PointKey key;
  std::vector<double> medians_s;  // the point's median in each launch of the history, oldest first
  std::vector<double> judged_s;   // its medians in the launches judged (tonight), oldest first
  double base_s = kNoValue;       // a BASE to judge against, the history lending its spread only;
                                  // none: against the history's level
};

// The evidence judge_launches weighs, per point in order, over the history launches `state`
// holds in tonight's host state (none given: every one).
std::vector<LaunchEvidence> history_evidence(std::span<const LaunchHistory> points,
                                             const CompareOptions& options,
                                             const HostStateMatch& state = {});

// One verdict per point, in order: judge_launches of the history's evidence. A night whose state
// holds fewer than two of the history's launches is judged against all of them, SLOWER or FASTER
// only beyond kHostStateReach, else UNSURE with the reason.
std::vector<LaunchVerdict> judge_against_history(std::span<const LaunchHistory> points,
                                                 const CompareOptions& options,
                                                 const HostStateMatch& state = {});

// The night as a whole: each launch's level the mean, over the points it holds, of a point's log
// median less its mean over the history; tonight's against the history's latest level in
// tonight's state, judged against how far the launches' levels spread (pooled within its levels
// and other states), one test at the options' confidence. A regression at every point shows here with the points' own errors averaged
// away, where each point, judged under one false discovery rate with the others, may not clear
// it. Against a BASE (`base_s`) it is not judged; with the host changed, as
// judge_against_history.
LaunchVerdict judge_night(std::span<const LaunchHistory> points, const CompareOptions& options,
                          const HostStateMatch& state = {});

// `compare` with a history: each matched pair's point judged with its medians in `history` (older
// files, oldest first, where the point is found by its key), NEW's median being tonight's. With
// `base_in_history` BASE is the history's newest launch (the nightly case), else a launch of its
// own that NEW is judged against. `state` covers the history's launches (BASE last when it is in
// the history).
LaunchComparison compare_to_history(std::span<const PointResult> base,
                                    std::span<const PointResult> now, const PointMatch& match,
                                    const CompareOptions& options,
                                    std::span<const std::vector<PointResult>> history,
                                    bool base_in_history, const HostStateMatch& state);

}  // namespace collbench
