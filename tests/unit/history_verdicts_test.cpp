// compare against a history of launches, on simulated nights: 3 curves of 24 sizes, each point
// with its own launch-to-launch spread (1-9% on the log scale, median 3%) and heavy-tailed launch
// effects (Student's t, 4 degrees of freedom). Rates are counted over many nights, both against
// the history's level and for a single BASE that borrows the history's spread.
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
      point.tonight_s = launch(history) * tonight_factor;
      if (with_base) point.base_s = launch(history + 1);
      night.points.push_back(point);
    }
  return night;
}

struct Rates {
  double points_slower_or_faster = 0;  // of all points, over the nights
  double points_slower = 0;
  double nights_alerted = 0;  // nights with a SLOWER alert
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
    const auto verdicts = judge_against_history(night.points, options);
    for (const auto& v : verdicts) {
      changed += v.verdict == Change::slower || v.verdict == Change::faster;
      slower += v.verdict == Change::slower;
      ++points;
    }
    alerted += !grouped_sizes(keys_of(night), verdicts, Change::slower).empty();
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
// false alarm here all the same, and stays rare because the history's shifts show the states.
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
    EXPECT_NEAR(verdicts[i].ratio, night.points[i].tonight_s / night.points[i].base_s, 1e-12);
}

TEST(HistoryVerdicts, EveryIntervalHoldsItsRatioAndTheWindowFollowsTheLastChange) {
  Night night = simulated_night(7, 1.0);
  // The first point's history stepped up 30% four launches ago: only the last four count.
  auto& stepped = night.points.front();
  for (int k = 4; k < kHistory; ++k) stepped.medians_s[k] *= 1.3;
  stepped.tonight_s *= 1.3;
  const auto verdicts = judge_against_history(night.points, CompareOptions{});
  EXPECT_EQ(verdicts.front().launches, 4u);
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
    EXPECT_NE(v.reason.find("1 launch since the history's last change"), std::string::npos);
  }
}

}  // namespace
}  // namespace collbench
