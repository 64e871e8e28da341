#pragma once
// `compare` against a history of launches (nightly files): the launch is the unit of
// replication, since what varies between launches (page placement, core pairing, the host's
// state) no sample inside one launch sees. Per point, log median = level + change + launch
// effect: tonight's median is judged against the point's medians in the launches since the
// history's last change point (trend's change_points.h), whose spread is moderated toward its
// curve's (moderated_variance.h: a few launches cannot tell a quiet point from a lucky one).
//
// With the window's n launches, mean log m and moderated variance s̃² on d degrees of freedom,
// log r = log(tonight) − m has the prediction standard error s̃ √(1 + 1/n); the interval is
// r · exp(±t_d · se), around the printed ratio; the p-value is two-sided against no change.
// Benjamini-Hochberg at q = 1 − confidence over every point of the comparison decides which
// points changed; a changed point is SLOWER or FASTER when its ratio also passes the threshold
// (1 + t, or 1/(1 + t)). The others: SAME inside the threshold's band, NOISY where the interval
// is wider than the band (no tonight could be told SAME), else UNSURE.
//
// Alerts group the SLOWER points of a curve: two or more at sizes next to each other. One point
// alone, however far out, is not one: launch effects are heavy-tailed, and on simulated nights
// with Student's t(4) effects a lone point beyond Bonferroni's bound (q/m) alerted 19% of
// unchanged nights, against none for two neighbours.
#include <cstddef>
#include <span>
#include <vector>

#include "harness/compare/compare_points.h"
#include "harness/plan/point.h"
#include "harness/stats/no_value.h"

namespace collbench {

struct LaunchHistory {
  PointKey key;
  std::vector<double> medians_s;  // the point's median in each earlier launch, oldest first
  double tonight_s = 0;           // its median in the launch judged
};

struct HistoryVerdict {
  double ratio = 0;           // tonight / the window's geometric mean
  Interval ratio_ci;          // prediction interval at the comparison's confidence
  double p_value = kNoValue;  // two-sided, against no change; unjudged: none
  std::size_t launches = 0;   // in the window since the last change point
  Change verdict = Change::unsure;
  std::string reason;  // why UNSURE, when it is not the interval's doing
};

// One verdict per point, in order.
std::vector<HistoryVerdict> judge_against_history(std::span<const LaunchHistory> points,
                                                  const CompareOptions& options);

// `compare` with earlier baselines: each matched pair's point judged against its medians in
// `earlier` (older files, oldest first, where the point is found by its key) and BASE, NEW's
// median being tonight's. With the SLOWER alerts, as indexes into the points.
struct HistoryComparison {
  std::vector<PointComparison> points;
  std::vector<std::vector<std::size_t>> alerts;
};
HistoryComparison compare_to_history(std::span<const PointResult> base,
                                     std::span<const PointResult> now, const PointMatch& match,
                                     const CompareOptions& options,
                                     std::span<const std::vector<PointResult>> earlier);

// The SLOWER points that form an alert: two or more of one curve at sizes next to each other
// (among that curve's judged sizes). Indexes into the points, each alert's in size order.
std::vector<std::vector<std::size_t>> slower_alerts(std::span<const LaunchHistory> points,
                                                    std::span<const HistoryVerdict> verdicts);

}  // namespace collbench
