// The core that judges a change against the spread between launches: moderation, the interval's
// centre, the reasons a point is not judged, and how verdicts group into alerts.
#include "harness/compare/launch_verdicts.h"

#include <gtest/gtest.h>

#include <cmath>
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
  return {key(curve, step), change, {0, sd * sd, launches}, {}, 1, {}};
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
  // interval is several times wider than its own launches alone would give (t(5) · 0.1%).
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 9; ++s) points.push_back(evidence(0, s, 0, 0.05, 6));
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
  points[1].launches.variance = 0;
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

TEST(LaunchVerdicts, AChangeIsSlowerOnlyPastTheThreshold) {
  // Tight spreads (0.5%): 3% slower is a discovery, but inside a 5% threshold: not SLOWER.
  std::vector<LaunchEvidence> points;
  for (int s = 0; s < 10; ++s) points.push_back(evidence(0, s, std::log(1.03), 0.005, 8));
  for (const auto& v : judge_launches(points, CompareOptions{})) {
    EXPECT_LT(v.p_value, 0.001);
    EXPECT_NE(v.verdict, Change::slower);
  }
  CompareOptions strict;
  strict.threshold = 0.01;
  for (const auto& v : judge_launches(points, strict)) EXPECT_EQ(v.verdict, Change::slower);
}

}  // namespace
}  // namespace collbench
