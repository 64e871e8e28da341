// The core that judges a change against the spread between launches: moderation, the interval's
// centre, the reasons a point is not judged, and how verdicts group into alerts.
#include "harness/compare/launch_verdicts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace collbench {
namespace {

PointKey key(int curve, int size_step) {
  PointKey k;
  k.collective = static_cast<CollectiveKind>(curve);
  k.nranks = 2;
  k.size_bytes = std::size_t{8} << size_step;
  return k;
}

LaunchEvidence evidence(int curve, int step, double change, double sd, std::size_t launches) {
  LaunchEvidence e;
  e.key = key(curve, step);
  e.log_change = change;
  e.launches = launches;
  e.own_variance = sd * sd;
  e.own_df = static_cast<double>(launches) - 1;
  e.se_per_sd = 1;
  return e;
}

TEST(LaunchVerdicts, GroupsNeedTwoNeighbouringSizesOfOneCurve) {
  std::vector<PointKey> keys;
  for (int curve = 0; curve < 3; ++curve)
    for (int s = 0; s < 24; ++s) keys.push_back(key(curve, s));
  std::vector<LaunchVerdict> verdicts(keys.size());
  for (auto& v : verdicts) {
    v.ratio_ci = {0.9, 1.1};
    v.verdict = Change::same;
  }
  verdicts[3].verdict = Change::slower;  // alone: no alert
  verdicts[10].verdict = verdicts[11].verdict = verdicts[12].verdict = Change::slower;
  verdicts[23].verdict = verdicts[24].verdict = Change::slower;  // the last of one curve and
                                                                 // the first of the next
  verdicts[40].verdict = verdicts[41].verdict = Change::slower;
  verdicts[41].ratio_ci = {NAN, NAN};  // not judged: 40 and 42 become neighbours
  verdicts[42].verdict = Change::slower;
  verdicts[50].verdict = verdicts[51].verdict = Change::faster;
  EXPECT_EQ(grouped_sizes(keys, verdicts, Change::slower),
            (std::vector<std::vector<std::size_t>>{{10, 11, 12}, {40, 42}}));
  EXPECT_EQ(grouped_sizes(keys, verdicts, Change::faster),
            (std::vector<std::vector<std::size_t>>{{50, 51}}));
}

TEST(LaunchVerdicts, TheIntervalIsCentredOnThePrintedRatio) {
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 10; ++s) points.push_back(evidence(0, s, 0.01 * s, 0.03, 6));
  for (const auto& v : judge_launches(points, CompareOptions{})) {
    ASSERT_TRUE(std::isfinite(v.ratio_ci.low)) << v.reason;
    EXPECT_NEAR(std::log(v.ratio_ci.low) + std::log(v.ratio_ci.high), 2 * std::log(v.ratio), 1e-9);
  }
}

TEST(LaunchVerdicts, AQuietPointBorrowsItsCurvesSpread) {
  // Nine points with a 5% spread, one whose six launches happened to agree to 0.1%: moderated, its
  // interval is several times wider than its own launches alone would give (t(5) · 0.1%). Their
  // changes differ far beyond their errors, so the curve lends no change: the spreads show.
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 9; ++s) points.push_back(evidence(0, s, 0.3 * (s - 4), 0.05, 6));
  points.push_back(evidence(0, 9, 0, 0.001, 6));
  const auto verdicts = judge_launches(points, CompareOptions{});
  const double quiet = std::log(verdicts[9].ratio_ci.high / verdicts[9].ratio);
  EXPECT_GT(quiet, 5 * 2.571 * 0.001);
  EXPECT_LT(quiet, std::log(verdicts[0].ratio_ci.high / verdicts[0].ratio));
}

TEST(LaunchVerdicts, UnjudgedPointsSayWhyAndNeverGroup) {
  std::vector<LaunchEvidence> points{evidence(0, 0, 1.0, 0.02, 5), evidence(0, 1, 1.0, 0.02, 5)};
  points[0].unjudged = "1 pair of launches";
  points[1].key = key(1, 0);  // alone on its curve: nothing to borrow
  points[1].own_variance = 0;
  points.push_back(evidence(0, 2, NAN, 0.02, 5));
  const auto verdicts = judge_launches(points, CompareOptions{});
  EXPECT_EQ(verdicts[0].reason, "1 pair of launches");
  EXPECT_NE(verdicts[1].reason.find("agree exactly"), std::string::npos);
  EXPECT_NE(verdicts[2].reason.find("missing"), std::string::npos);
  for (const auto& v : verdicts) EXPECT_EQ(v.verdict, Change::unsure);
}

TEST(LaunchVerdicts, TheSharedShiftIsTheMedianDeviationPerLaunch) {
  // three points over four launches; the second launch moved all of them up by 0.7
  const std::vector<std::vector<double>> logs{
      {1.0, 1.7, 1.0, 1.0}, {2.0, 2.7, 2.0, 2.1}, {3.0, 3.7, NAN, 3.0}};
  const auto shifts = launch_shifts(logs);
  ASSERT_EQ(shifts.size(), 4u);
  EXPECT_NEAR(shifts[1] - shifts[0], 0.7, 1e-12);  // the median point's move
  EXPECT_NEAR(shifts[2], shifts[0], 0.05);
  const SharedEffect shared = shared_effect(shifts);
  EXPECT_EQ(shared.df, 3);
  EXPECT_GT(shared.variance, 0.05);
  EXPECT_EQ(shared_effect(std::vector{0.1}).df, 0);  // one launch: no spread
}

TEST(LaunchVerdicts, ASharedEffectHasTheLaunchesDegreesOfFreedom) {
  // Forty points whose own spreads are tiny and alike (a prior of many degrees of freedom), and a
  // shared effect of 5% seen over 3 launches: the interval is Student's t on about 2 degrees of
  // freedom of that 5%, not the normal's over forty points.
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 40; ++s) {
    points.push_back(evidence(0, s, 0, 0.001 * (1 + 0.01 * s), 3));
    points.back().shared = {0.05 * 0.05, 2};
  }
  const auto verdicts = judge_launches(points, CompareOptions{});
  const double half_width = std::log(verdicts[0].ratio_ci.high / verdicts[0].ratio);
  EXPECT_GT(half_width, 4.0 * 0.05);  // t(2) at 97.5% is 4.30; the normal's 1.96
  EXPECT_LT(half_width, 4.4 * 0.05);
}

TEST(LaunchVerdicts, AChangeIsSlowerOnlyWhenItIsSignificantlyPastTheThreshold) {
  // Tight spreads (0.5%): 3% slower lies inside a 5% threshold: not SLOWER, however sure.
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 10; ++s) points.push_back(evidence(0, s, std::log(1.03), 0.005, 8));
  for (const auto& v : judge_launches(points, CompareOptions{})) {
    EXPECT_GT(v.p_value, 0.99);  // a change within the threshold is the hypothesis tested
    EXPECT_EQ(v.verdict, Change::same);
  }
  CompareOptions strict;
  strict.threshold = 0.01;
  for (const auto& v : judge_launches(points, strict)) {
    EXPECT_LT(v.p_value, 0.001);
    EXPECT_EQ(v.verdict, Change::slower);
  }
}

// The threshold is tested, not compared with the estimate: a curve whose points lie just past it
// (5.5% at 5%, each point's error 2%) is SLOWER on too little evidence under the old rule and is
// not now; a curve 15% slower with the same errors is.
TEST(LaunchVerdicts, AnEstimateJustPastTheThresholdIsNotSlower) {
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 10; ++s)
    points.push_back(evidence(0, s, std::log(1.055) + 0.01 * (s % 3 - 1), 0.02, 30));
  for (int s = 0; s < 10; ++s)
    points.push_back(evidence(1, s, std::log(1.15) + 0.01 * (s % 3 - 1), 0.02, 30));
  const auto verdicts = judge_launches(points, CompareOptions{});
  for (int s = 0; s < 10; ++s) {
    EXPECT_GT(verdicts[s].ratio, 1.05);
    EXPECT_GT(verdicts[s].p_value, 0.05);
    EXPECT_NE(verdicts[s].verdict, Change::slower);
  }
  for (int s = 10; s < 20; ++s) EXPECT_EQ(verdicts[s].verdict, Change::slower);
}

// A curve 10% slower at every size, each point's own error 3%: alone, a point's change is not
// significantly past 5%; with its curve's, every point's is, and its interval is a fraction of
// its own.
TEST(LaunchVerdicts, ACurveThatMovedAlikeLendsItsPointsItsChange) {
  std::vector<LaunchEvidence> points;
  const double observed[] = {0.07, 0.12, 0.09, 0.11, 0.08, 0.10, 0.13, 0.06, 0.10, 0.09, 0.11, 0.08};
  for (int s = 0; s < 12; ++s) points.push_back(evidence(0, s, observed[s], 0.03, 30));
  const auto verdicts = judge_launches(points, CompareOptions{});
  for (int s = 0; s < 12; ++s) {
    EXPECT_NEAR(verdicts[s].observed_ratio, std::exp(observed[s]), 1e-12);
    EXPECT_NEAR(std::log(verdicts[s].ratio), 0.095, 0.01);
    EXPECT_LT(std::log(verdicts[s].ratio_ci.high / verdicts[s].ratio), 2.1 * 0.03 / 2);
    EXPECT_EQ(verdicts[s].verdict, Change::slower);
  }
}

// Over 2,000 curves of 12 points, each 10% slower, own errors of 1-4% (sd) estimated from 5
// launches: how often every point takes the curve's change. Each point's spread about the curve
// is then its own error seen through an estimated variance, a Student t on 4 df whose square
// averages 2, not 1: read as differences between points, it would lend the curve's change on
// few curves. The negative control adds true differences between the points twice their
// errors; those curves are rarely pooled.
double share_pooled(double true_spread, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::chi_squared_distribution<double> chi_squared(4);
  int pooled = 0;
  constexpr int kCurves = 2000;
  for (int c = 0; c < kCurves; ++c) {
    std::vector<LaunchEvidence> points;
    for (int s = 0; s < 12; ++s) {
      const double sd = 0.01 + 0.03 * s / 11;
      points.push_back(evidence(0, s, 0.1 + true_spread * sd * normal(engine) + sd * normal(engine),
                                sd * std::sqrt(chi_squared(engine) / 4), 5));
    }
    const auto verdicts = judge_launches(points, CompareOptions{});
    bool alike = true;
    for (const auto& v : verdicts) alike &= std::abs(v.ratio / verdicts[0].ratio - 1) < 1e-9;
    pooled += alike;
  }
  return static_cast<double>(pooled) / kCurves;
}

TEST(LaunchVerdicts, PointsThatAgreeWithinTheirEstimatedErrorsTakeTheCurvesChange) {
  const double agreeing = share_pooled(0, 1), differing = share_pooled(2, 2);
  std::printf("curves pooled: %.1f%% when the points agree, %.1f%% when they differ\n",
              100 * agreeing, 100 * differing);
  EXPECT_GE(agreeing, 0.40);
  EXPECT_LE(differing, 0.10);
}

// 30% slower at the four largest sizes only: they keep their own change, and the eight unchanged
// sizes are not pulled past the threshold.
TEST(LaunchVerdicts, AChangeAtSomeSizesStaysThere) {
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 12; ++s)
    points.push_back(evidence(0, s, s < 8 ? 0.01 * (s % 3 - 1) : std::log(1.3), 0.02, 30));
  const auto verdicts = judge_launches(points, CompareOptions{});
  for (int s = 0; s < 8; ++s) EXPECT_NE(verdicts[s].verdict, Change::slower) << s;
  for (int s = 8; s < 12; ++s) {
    EXPECT_NEAR(verdicts[s].ratio, 1.3, 0.03) << s;
    EXPECT_EQ(verdicts[s].verdict, Change::slower) << s;
  }
}

// Points whose launches agree to the last bit but for their shared shift (own variances of
// 1e-310, as `trend --recent 2` met on nights the interposer slowed alike) are judged on the
// shared spread, never NaN.
TEST(LaunchVerdicts, PointsWhoseLaunchesAgreeExactlyAreJudgedOnTheSharedSpread) {
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 5; ++s) points.push_back(evidence(0, s, 0.01 * s, 1e-155, 6));
  for (auto& point : points) point.shared = {0.02 * 0.02, 3};
  for (const auto& v : judge_launches(points, CompareOptions{})) {
    EXPECT_TRUE(std::isfinite(v.ratio) && std::isfinite(v.ratio_ci.low)) << v.reason;
    EXPECT_TRUE(std::isfinite(v.p_value));
  }
}

}  // namespace
}  // namespace collbench
