// compare against a history of launches, on simulated nights: 3 curves of 24 sizes, each point
// with its own launch-to-launch spread (1-9% on the log scale, median 3%) and heavy-tailed launch
// effects (Student's t, 4 degrees of freedom). Rates are counted over many nights, both against
// the history's level and for a single BASE that borrows the history's spread; how the verdict
// is built (its centre, its levels, the host states it keeps to) is shown on single nights. The
// rates per night across this VM's kinds of host states are nightly_rates_test's.
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
  HostStateMatch state;  // what each launch's probe told: its host state, tonight's 0
};

// `history` earlier launches and tonight's, tonight's times `tonight_factor` times the level;
// with `with_base`, one more launch at the level as BASE. With `other_state`, each launch finds
// the host in its other state with that chance: every point 2.2x faster (this VM's two states),
// which its probe shows (host_states.h).
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
  night.state.probed = true;
  for (int k = 0; k < history; ++k) night.state.state_of.push_back(host[k] == host[history] ? 0 : 1);
  night.state.base_in_state = !with_base || host[history + 1] == host[history];
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

struct Rates {
  double points_slower_or_faster = 0;  // of all points, over the nights
  double points_slower = 0;
  double nights_alerted = 0;  // nights with an alert: a SLOWER group, or the night as a whole
};

std::vector<PointKey> keys_of(const Night& night) {
  std::vector<PointKey> keys;
  for (const auto& point : night.points) keys.push_back(point.key);
  return keys;
}

Rates rates(double tonight_factor, int nights, bool with_base = false, double other_state = 0) {
  const CompareOptions options;  // 5%, 95%
  std::size_t changed = 0, slower = 0, points = 0, alerted = 0;
  for (int n = 0; n < nights; ++n) {
    const Night night = simulated_night(1000 + n, tonight_factor, kHistory, with_base, other_state);
    const auto verdicts = judge_against_history(night.points, options, night.state);
    for (const auto& v : verdicts) {
      changed += v.verdict == Change::slower || v.verdict == Change::faster;
      slower += v.verdict == Change::slower;
      ++points;
    }
    alerted += !grouped_sizes(keys_of(night), verdicts, Change::slower).empty() ||
               judge_night(night.points, options, night.state).verdict == Change::slower;
  }
  const Rates r{static_cast<double>(changed) / points, static_cast<double>(slower) / points,
                static_cast<double>(alerted) / nights};
  std::printf(
      "tonight %.2fx%s, host in its other state %.0f%% of launches, over %d nights: "
      "%.2f%% of points SLOWER or FASTER, %.2f%% SLOWER, %.1f%% of nights alerted\n",
      tonight_factor, with_base ? " against a single BASE" : "", 100 * other_state, nights,
      100 * r.points_slower_or_faster, 100 * r.points_slower, 100 * r.nights_alerted);
  return r;
}

TEST(HistoryVerdicts, AnUnchangedNightRaisesFewAlarmsOverManyNights) {
  const Rates r = rates(1.0, 400);
  EXPECT_LE(r.points_slower_or_faster, 0.05);
  EXPECT_LE(r.nights_alerted, 0.05);
}

TEST(HistoryVerdicts, TenPercentSlowerIsFoundOnTheFirstNight) {
  const Rates r = rates(1.10, 200);
  EXPECT_GE(r.points_slower, 0.5);
  EXPECT_GE(r.nights_alerted, 0.95);
}

// A host that changes state moves every point of a launch together. Tonight in the state that
// the history holds least is a real change of the machine, not of the build: it is counted as a
// false alarm here all the same, and stays rare because each launch's probe shows its state.
// Without a probe (files before schema 20) the same nights flag 11.7% of their points, mostly
// FASTER: docs/nightly.md says so.
TEST(HistoryVerdicts, AHostThatChangesStateRaisesFewAlarms) {
  const Rates r = rates(1.0, 400, false, 0.25);
  EXPECT_LE(r.points_slower_or_faster, 0.05);
  EXPECT_LE(r.nights_alerted, 0.05);
}

TEST(HistoryVerdicts, ASingleBaseWithTheHistorysSpreadRaisesFewAlarms) {
  const Rates r = rates(1.0, 400, true);
  EXPECT_LE(r.points_slower_or_faster, 0.05);
  EXPECT_LE(r.nights_alerted, 0.05);
}

// Two single launches differ by √2 launch spreads, not √(1 + 1/8): less power than the history's
// level gives (see the test above), stated here as measured.
TEST(HistoryVerdicts, ASingleBaseWithTheHistorysSpreadFindsTenPercent) {
  const Rates r = rates(1.10, 200, true);
  EXPECT_GE(r.points_slower, 0.5);
  EXPECT_GE(r.nights_alerted, 0.95);
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
  for (int k = 0; k < kHistory; ++k) state.state_of.push_back(k % 2);
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
  state.state_of.assign(kHistory, 1);
  state.state_of[2] = 0;
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

// An unchanged night whose history stepped 30% up halfway (an old regression), every point.
Night stepped_night() {
  Night night = simulated_night(17, 1.0);
  for (auto& point : night.points) {
    for (int k = 4; k < kHistory; ++k) point.medians_s[k] *= 1.3;
    point.judged_s[0] *= 1.3;
  }
  return night;
}

// A level the history changed to (an old regression) is the reference, and the spread comes from
// every segment: the point stepped 30% up halfway is judged on all 8 launches' spread.
TEST(HistoryVerdicts, TheSpreadIsPooledOverTheHistorysLevels) {
  const Night night = stepped_night();
  const auto evidence = history_evidence(night.points, CompareOptions{});
  for (const auto& e : evidence) {
    ASSERT_TRUE(e.unjudged.empty()) << e.unjudged;
    EXPECT_EQ(e.launches, static_cast<std::size_t>(kHistory));
    EXPECT_LT(std::abs(e.log_change), 0.25);  // against the new level, not the old
  }
  EXPECT_GE(evidence.front().shared.df, kHistory - 2.0);  // the curve's two levels
}

// The night as a whole: 10% slower at every point, its mean over the 72 points against the
// launches' levels is SLOWER, its ratio the change; unchanged, it is SAME.
TEST(HistoryVerdicts, ANightSlowerEverywhereIsSlowerAsAWhole) {
  for (std::uint64_t seed = 19; seed < 29; ++seed) {
    const LaunchVerdict slower = judge_night(simulated_night(seed, 1.10).points, CompareOptions{});
    EXPECT_EQ(slower.verdict, Change::slower) << seed;
    EXPECT_NEAR(slower.ratio, 1.10, 0.03) << seed;
    EXPECT_LT(slower.ratio_ci.low, slower.ratio);
    EXPECT_EQ(slower.launches, static_cast<std::size_t>(kHistory));
    const LaunchVerdict same = judge_night(simulated_night(seed, 1.0).points, CompareOptions{});
    EXPECT_EQ(same.verdict, Change::same) << seed;
  }
}

// As each point's: against the history's latest level (all stepped 30% up halfway), tonight at
// that level is unchanged; in a host state the history lacks, UNSURE saying why unless no state
// explains it; against one BASE, not judged.
TEST(HistoryVerdicts, TheNightIsJudgedAgainstTheLatestLevelInTonightsState) {
  const LaunchVerdict level = judge_night(stepped_night().points, CompareOptions{});
  EXPECT_NEAR(level.ratio, 1.0, 0.02);
  EXPECT_EQ(level.launches, 4u);
  HostStateMatch state;
  state.probed = true;
  state.state_of.assign(kHistory, 1);
  state.state_of[2] = 0;
  const LaunchVerdict unsure = judge_night(simulated_night(13, 2.0).points, CompareOptions{}, state);
  EXPECT_EQ(unsure.verdict, Change::unsure);
  EXPECT_NE(unsure.reason.find("host state not in the history"), std::string::npos);
  EXPECT_EQ(judge_night(simulated_night(13, 10.0).points, CompareOptions{}, state).verdict,
            Change::slower);
  const LaunchVerdict against_base =
      judge_night(simulated_night(13, 2.0, kHistory, true).points, CompareOptions{});
  EXPECT_EQ(against_base.verdict, Change::unsure);
  EXPECT_NE(against_base.reason.find("against one BASE"), std::string::npos);
}

}  // namespace
}  // namespace collbench
