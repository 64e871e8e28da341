// compare against a history of launches, on simulated nights: 3 curves of 24 sizes, each point
// with its own launch-to-launch spread (1-9% on the log scale, median 3%) and heavy-tailed launch
// effects (Student's t, 4 degrees of freedom). Rates are counted over many nights.
#include "harness/compare/history_verdicts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace collbench {
namespace {

constexpr int kCurves = 3, kSizes = 24, kHistory = 8;

struct Night {
  std::vector<LaunchHistory> points;
};

// `history` earlier launches and tonight's, tonight's times `tonight_factor` times the level.
Night simulated_night(std::uint64_t seed, double tonight_factor, int history = kHistory) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> unit;
  std::student_t_distribution<double> heavy(4);
  const double heavy_sd = std::sqrt(4.0 / 2);  // a t(4)'s standard deviation
  Night night;
  for (int curve = 0; curve < kCurves; ++curve)
    for (int s = 0; s < kSizes; ++s) {
      LaunchHistory point;
      point.key.collective = static_cast<CollectiveKind>(curve);
      point.key.nranks = 2;
      point.key.size_bytes = std::size_t{8} << s;
      const double level = 1e-6 * std::pow(1.6, s);
      const double sd = std::clamp(0.03 * std::exp(0.5 * unit(engine)), 0.01, 0.09);
      const auto launch = [&] { return level * std::exp(sd * heavy(engine) / heavy_sd); };
      for (int k = 0; k < history; ++k) point.medians_s.push_back(launch());
      point.tonight_s = launch() * tonight_factor;
      night.points.push_back(point);
    }
  return night;
}

struct Rates {
  double points_slower_or_faster = 0;  // of all points, over the nights
  double points_slower = 0;
  double nights_alerted = 0;  // nights with a SLOWER alert
};

Rates rates(double tonight_factor, int nights, int history = kHistory) {
  const CompareOptions options;  // 5%, 95%
  std::size_t changed = 0, slower = 0, points = 0, alerted = 0;
  for (int n = 0; n < nights; ++n) {
    const Night night = simulated_night(1000 + n, tonight_factor, history);
    const auto verdicts = judge_against_history(night.points, options);
    for (const auto& v : verdicts) {
      changed += v.verdict == Change::slower || v.verdict == Change::faster;
      slower += v.verdict == Change::slower;
      ++points;
    }
    alerted += !slower_alerts(night.points, verdicts).empty();
  }
  return {static_cast<double>(changed) / points, static_cast<double>(slower) / points,
          static_cast<double>(alerted) / nights};
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

TEST(HistoryVerdicts, AlertsNeedTwoNeighbouringSizes) {
  Night night = simulated_night(11, 1.0);
  std::vector<HistoryVerdict> verdicts(night.points.size());
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
  const auto alerts = slower_alerts(night.points, verdicts);
  EXPECT_EQ(alerts, (std::vector<std::vector<std::size_t>>{{10, 11, 12}, {40, 42}}));
}

}  // namespace
}  // namespace collbench
