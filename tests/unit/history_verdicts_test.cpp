// compare against a history of launches, on simulated nights: 3 curves of 24 sizes, each point
// with its own launch-to-launch spread (1-9% on the log scale, median 3%) and heavy-tailed launch
// effects (Student's t, 4 degrees of freedom). How the verdict is built: its centre, its window,
// the host states it keeps to. The rates a nightly job sees are nightly_rates_test's.
#include "harness/compare/history_verdicts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace collbench {
namespace {

constexpr int kCurves = 3, kSizes = 24, kHistory = 8;

struct Night {
  std::vector<LaunchHistory> points;
};

// `history` earlier launches and tonight's, tonight's times `tonight_factor` times the level;
// with `with_base`, one more launch at the level as BASE. With `other_state`, each launch finds
// the host in its other state with that chance: every point 2.2x faster (this VM's two states).
Night simulated_night(std::uint64_t seed, double tonight_factor, int history = kHistory,
                      bool with_base = false, double other_state = 0) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> unit;
  std::student_t_distribution<double> heavy(4);
  std::bernoulli_distribution state(other_state);
  const double heavy_sd = std::sqrt(4.0 / 2);  // a t(4)'s standard deviation
  std::vector<double> host(history + 2);       // the history's launches, tonight's, BASE's
  for (double& h : host) h = state(engine) ? 1 / 2.2 : 1;
  Night night;
  for (int curve = 0; curve < kCurves; ++curve)
    for (int s = 0; s < kSizes; ++s) {
      LaunchHistory point;
      point.key.collective = static_cast<CollectiveKind>(curve);
      point.key.nranks = 2;
      point.key.size_bytes = std::size_t{8} << s;
      const double level = 1e-6 * std::pow(1.6, s);
      const double sd = std::clamp(0.03 * std::exp(0.5 * unit(engine)), 0.01, 0.09);
      const auto launch = [&](int k) {
        return host[k] * level * std::exp(sd * heavy(engine) / heavy_sd);
      };
      for (int k = 0; k < history; ++k) point.medians_s.push_back(launch(k));
      point.judged_s = {launch(history) * tonight_factor};
      if (with_base) point.base_s = launch(history + 1);
      night.points.push_back(point);
    }
  return night;
}

TEST(HistoryVerdicts, ASingleBaseIsTheCentre) {
  Night night = simulated_night(5, 1.0, kHistory, true);
  const auto verdicts = judge_against_history(night.points, CompareOptions{});
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    EXPECT_NEAR(verdicts[i].observed_ratio, night.points[i].judged_s[0] / night.points[i].base_s,
                1e-12);
}

TEST(HistoryVerdicts, EveryIntervalHoldsItsRatioAndTheLevelFollowsTheLastChange) {
  Night night = simulated_night(7, 1.0);
  // The first point's history stepped up 30% four launches ago: its level is the last four's.
  auto& stepped = night.points.front();
  for (int k = 4; k < kHistory; ++k) stepped.medians_s[k] *= 1.3;
  stepped.judged_s[0] *= 1.3;
  const auto verdicts = judge_against_history(night.points, CompareOptions{});
  EXPECT_LT(std::abs(std::log(verdicts.front().ratio)), 0.25);
  EXPECT_NE(verdicts.front().verdict, Change::slower);
  for (const auto& v : verdicts) {
    ASSERT_TRUE(std::isfinite(v.ratio_ci.low)) << v.reason;
    EXPECT_LE(v.ratio_ci.low, v.ratio);
    EXPECT_GE(v.ratio_ci.high, v.ratio);
    EXPECT_NEAR(std::log(v.ratio_ci.low) + std::log(v.ratio_ci.high), 2 * std::log(v.ratio),
                1e-9);  // one centre for the ratio and its interval
  }
}

TEST(HistoryVerdicts, OneLaunchOfHistoryIsUnsureSayingWhy) {
  const Night night = simulated_night(3, 2.0, 1);
  for (const auto& v : judge_against_history(night.points, CompareOptions{})) {
    EXPECT_EQ(v.verdict, Change::unsure);
    EXPECT_NE(v.reason.find("1 launch of the history in tonight's host state"), std::string::npos);
  }
}

// Launches outside tonight's state lend their spread, never their level: half the history 2.2x
// faster, in another state, leaves tonight's ratio to the other half's level, and judges it on
// the spread of all eight, each half about its own mean.
TEST(HistoryVerdicts, OtherStatesLendTheirSpreadNotTheirLevel) {
  Night night = simulated_night(11, 1.0);
  HostStateMatch state;
  state.probed = true;
  for (int k = 0; k < kHistory; ++k) {
    state.in_state.push_back(k % 2 == 0);
    state.state_of.push_back(k % 2);
  }
  Night alone = night;
  for (auto& point : night.points)
    for (int k = 1; k < kHistory; k += 2) point.medians_s[k] /= 2.2;
  for (auto& point : alone.points)
    for (int k = 1; k < kHistory; k += 2) point.medians_s[k] = NAN;
  const auto kept = judge_against_history(night.points, CompareOptions{}, state);
  const auto without = judge_against_history(alone.points, CompareOptions{});
  const auto evidence = history_evidence(night.points, CompareOptions{}, state);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].launches, static_cast<std::size_t>(kHistory));
    EXPECT_NEAR(kept[i].observed_ratio, without[i].observed_ratio, 1e-12);
    EXPECT_GE(evidence[i].shared.df, kHistory - 2.0);  // each state about its own mean
    EXPECT_LT(evidence[i].shared.variance, 0.05 * 0.05);  // not the states' 2.2x
  }
}

// What a host state can explain is UNSURE (twice as slow), what none can is SLOWER (ten times).
TEST(HistoryVerdicts, ANightInAStateTheHistoryLacksIsUnsureUnlessNoStateExplainsIt) {
  HostStateMatch state;
  state.probed = true;
  state.in_state.assign(kHistory, false);
  state.in_state[2] = true;
  for (const auto& v : judge_against_history(simulated_night(13, 2.0).points, CompareOptions{},
                                             state)) {
    EXPECT_EQ(v.verdict, Change::unsure);
    EXPECT_NE(v.reason.find("host state not in the history: tonight's probe agrees with 1 of its "
                            "8 probed launches"),
              std::string::npos)
        << v.reason;
  }
  for (const auto& v : judge_against_history(simulated_night(13, 10.0).points, CompareOptions{},
                                             state))
    EXPECT_EQ(v.verdict, Change::slower);
}

// A level the history changed to (an old regression) is the reference, and the spread comes from
// every segment: the point stepped 30% up halfway is judged on all 8 launches' spread.
TEST(HistoryVerdicts, TheSpreadIsPooledOverTheHistorysLevels) {
  Night night = simulated_night(17, 1.0);
  for (auto& point : night.points) {
    for (int k = 4; k < kHistory; ++k) point.medians_s[k] *= 1.3;
    point.judged_s[0] *= 1.3;
  }
  const auto evidence = history_evidence(night.points, CompareOptions{});
  for (const auto& e : evidence) {
    ASSERT_TRUE(e.unjudged.empty()) << e.unjudged;
    EXPECT_EQ(e.launches, static_cast<std::size_t>(kHistory));
    EXPECT_LT(std::abs(e.log_change), 0.25);  // against the new level, not the old
  }
  EXPECT_GE(evidence.front().shared.df, kHistory - 2.0);  // the curve's two levels
}

}  // namespace
}  // namespace collbench
