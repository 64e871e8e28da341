#pragma once
// Verdicts replicated where the noise lives: the launch. What varies between launches (page
// placement, core pairing, the host's state) no sample inside one launch sees, so a change is
// judged against the spread of a point's medians over launches, never over rounds or samples.
//
// Each point brings its change on a log scale (tonight against a history's level, NEW against
// BASE, or the mean difference of interleaved A/B pairs), the launches whose spread judges it,
// and how that spread scales to the change's standard error. A launch effect has two parts. One
// the curve's points share: the host's state (which cores the ranks share, where the pages lie)
// moves them together; its variance τ² comes from the curve's shift per launch (the median of
// its points' deviations) and has about as many degrees of freedom as launches, however many
// points share it. A history is judged within tonight's host state (host_states.h): between
// states the shift is 2.2x on this project's VM, and one night's draw of it cannot be told from
// a regression. The other part is each point's own, what is left once the shift is taken out;
// its variance is moderated toward the curve's (moderated_variance.h: a few launches cannot tell
// a quiet point from a lucky one), s̃². Each point's change is then estimated with its curve's
// (launch_verdicts.cpp, lend_curve): where the curve moved alike at every size, every point takes
// the curve's change and the far smaller own error of its points together; where they differ
// beyond their errors, each keeps its own. The change's standard error is
// se = √(τ² · se_per_sd² + own) on Satterthwaite's degrees of freedom, own the point's own part
// after the curve lent its, the interval r · exp(±t · se) around the printed ratio r, the
// estimate; the observed ratio (tonight's median over the level) is kept beside it.
//
// The threshold t is tested, not compared with the estimate: the p-value is against a change no
// larger than the threshold, |log r| <= log(1 + t), so that a true 4.9% is not SLOWER half the
// time at t = 5%; at the hypothesis' edge only the tail beyond it can reject, so it is the one
// tail's. Benjamini-Hochberg at q = 1 − confidence over every point decides
// which points lie beyond it: SLOWER or FASTER by the ratio's side. The others: SAME when the
// whole interval lies inside the band [1/(1 + t), 1 + t], NOISY where the interval is wider than
// the band (no launch could be told SAME), else UNSURE.
//
// Alerts group the SLOWER points of a curve: two or more at sizes next to each other (against a
// history the night as a whole alerts too: history_verdicts.h, judge_night). One point
// alone, however far out, is not one: launch effects are heavy-tailed, and on simulated nights
// with Student's t(4) effects a lone point beyond Bonferroni's bound (q/m) alerted 19% of
// unchanged nights, against none for two neighbours.
#include <cstddef>
#include <optional>
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

struct LaunchEvidence {
  PointKey key;
  double log_change = kNoValue;  // NEW against its reference; above 0 is slower
  std::size_t launches = 0;      // that lend their spread
  double own_variance = 0;       // the point's own spread: its launches' logs less the shifts
  double own_df = 0;             // and its degrees of freedom
  SharedEffect shared;           // its curve's
  double se_per_sd = 0;          // the change's standard error per launch standard deviation
  std::string unjudged;          // why the point cannot be judged; empty when it can
};

struct LaunchVerdict {
  double ratio = kNoValue;    // the change estimated with its curve's, as a ratio
  double observed_ratio = kNoValue;  // exp(log_change): the point's own, as measured
  Interval ratio_ci;          // at the comparison's confidence, around `ratio`
  double p_value = kNoValue;  // against a change within the threshold; unjudged: none
  std::size_t launches = 0;
  Change verdict = Change::unsure;
  std::string reason;  // why UNSURE, when it is not the interval's doing
};

// One verdict per point, in order.
std::vector<LaunchVerdict> judge_launches(std::span<const LaunchEvidence> points,
                                          const CompareOptions& options);

// A change (log) with its standard error on `df` degrees of freedom: its ratio, its interval at
// the options' confidence and its p-value against the threshold, set in `v`.
void judge_change(LaunchVerdict& v, double change, double se, double df,
                  const CompareOptions& options);
// The verdict of a judged change: SLOWER or FASTER by the ratio's side when it lies beyond the
// threshold (a discovery), else SAME, NOISY or UNSURE by its interval.
Change verdict_of(bool beyond_threshold, double ratio, const Interval& ratio_ci, double threshold);

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
  std::optional<LaunchVerdict> night;  // against a history: the night as a whole (judge_night)
};
// `results[i]` holds point i's key, sample counts and the medians the verdict compared (set by
// the caller); the verdict's numbers are filled in, and the groups found.
LaunchComparison launch_comparison(std::vector<PointComparison> results,
                                   std::span<const LaunchVerdict> verdicts);

}  // namespace collbench
