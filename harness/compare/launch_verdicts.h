#pragma once
// Verdicts replicated where the noise lives: the launch. What varies between launches (page
// placement, core pairing, the host's state) no sample inside one launch sees, so a change is
// judged against the spread of a point's medians over launches, never over rounds or samples.
//
// Each point brings its change on a log scale (tonight against a history's level, NEW against
// BASE, or the mean difference of interleaved A/B pairs), the launches whose spread judges it,
// and how that spread scales to the change's standard error. A launch effect has two parts. One
// the curve's points share: the host's state (which cores the ranks share, where the pages lie)
// moves them together, on this project's VM by 2.2x from one launch to the next; its variance
// τ² comes from the curve's shift per launch (the median of its points' deviations) and has
// launches − 1 degrees of freedom however many points share it. The other is each point's own,
// what is left once the shift is taken out; its variance is moderated toward the curve's
// (moderated_variance.h: a few launches cannot tell a quiet point from a lucky one), s̃² on d
// degrees of freedom. The change's standard error is se = √(τ² + s̃²) · se_per_sd on
// Satterthwaite's degrees of freedom, the interval r · exp(±t · se) around the printed ratio r,
// and the p-value two-sided against no change. Benjamini-Hochberg at q = 1 − confidence over every
// point decides which points changed; a changed point is SLOWER or FASTER when its ratio also
// passes the threshold (1 + t, or 1/(1 + t)). The others: SAME inside the threshold's band, NOISY
// where the interval is wider than the band (no launch could be told SAME), else UNSURE.
//
// Alerts group the SLOWER points of a curve: two or more at sizes next to each other. One point
// alone, however far out, is not one: launch effects are heavy-tailed, and on simulated nights
// with Student's t(4) effects a lone point beyond Bonferroni's bound (q/m) alerted 19% of
// unchanged nights, against none for two neighbours.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/compare/compare_points.h"
#include "harness/plan/point.h"
#include "harness/stats/no_value.h"
#include "harness/stats/rounds.h"

namespace collbench {

// The part of the launch effect a curve's points share.
struct SharedEffect {
  double variance = 0;  // τ², of the curve's shift from launch to launch (log scale)
  double df = 0;        // launches − 1; 0: not estimated
};

// For one curve, `logs[j][k]` point j's log median in launch k (NaN: missing): each launch's
// shift, the median over the points holding it of their deviation from their own mean (NaN where
// none does).
std::vector<double> launch_shifts(std::span<const std::vector<double>> logs);
SharedEffect shared_effect(std::span<const double> shifts);  // the spread of the finite ones
// Of a series of launches in time order: half the mean square of successive differences (von
// Neumann), which a step of level adds to once, a host flipping between states at every flip;
// its degrees of freedom are about two thirds of the differences' count.
SharedEffect successive_effect(std::span<const double> shifts);

struct LaunchEvidence {
  PointKey key;
  double log_change = kNoValue;  // NEW against its reference; above 0 is slower
  LogSpread launches;            // the point's own spread: its launches' logs less the shifts
  SharedEffect shared;           // its curve's
  double se_per_sd = 0;          // the change's standard error per launch standard deviation
  std::string unjudged;          // why the point cannot be judged; empty when it can
};

struct LaunchVerdict {
  double ratio = kNoValue;    // exp(log_change)
  Interval ratio_ci;          // at the comparison's confidence, around `ratio`
  double p_value = kNoValue;  // two-sided, against no change; unjudged: none
  std::size_t launches = 0;
  Change verdict = Change::unsure;
  std::string reason;  // why UNSURE, when it is not the interval's doing
};

// One verdict per point, in order.
std::vector<LaunchVerdict> judge_launches(std::span<const LaunchEvidence> points,
                                          const CompareOptions& options);

// The points of verdict `which` (SLOWER: the alerts) two or more of one curve at sizes next to
// each other (among that curve's judged sizes). Indexes into the points, each group's in size
// order.
std::vector<std::vector<std::size_t>> grouped_sizes(std::span<const PointKey> keys,
                                                    std::span<const LaunchVerdict> verdicts,
                                                    Change which);

// The verdicts as the comparison's points, with their SLOWER groups (the alerts) and FASTER ones.
struct LaunchComparison {
  std::vector<PointComparison> points;
  std::vector<std::vector<std::size_t>> alerts, faster_groups;
};
// `results[i]` holds point i's key, sample counts and the medians the verdict compared (set by
// the caller); the verdict's numbers are filled in, and the groups found.
LaunchComparison launch_comparison(std::vector<PointComparison> results,
                                   std::span<const LaunchVerdict> verdicts);

}  // namespace collbench
