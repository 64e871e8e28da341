// `trend`'s verdict over runs whose newest found the host in a state none before it did: the
// history is then one state, and a change beyond what a host state moves (kHostStateReach) is
// found where it was planted; one within it is UNSURE, saying why.
#include "harness/trend/trend_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace collbench {
namespace {

constexpr int kRuns = 6, kChangedFrom = 3, kCurvesPerRun = 2, kSizesPerCurve = 5;

HostProbe probe_copying_at(double GBps) {
  HostProbe probe;
  for (ProbeMoment moment : {ProbeMoment::start, ProbeMoment::middle, ProbeMoment::end})
    for (std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20})
      probe.readings.push_back({moment, bytes, GBps});
  return probe;
}

// Runs from `kChangedFrom` on `change` times slower, each median within 3% (sd) of its level;
// every run's probe copies at 10 GB/s but the newest's, at 4.
Trend trend_in_a_new_host_state(double change, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> noise(0, 0.03);
  Trend trend;
  trend.files.resize(kRuns);
  for (int curve = 0; curve < kCurvesPerRun; ++curve)
    for (int s = 0; s < kSizesPerCurve; ++s) {
      TrendPoint& point = trend.points.emplace_back();
      point.key.collective = static_cast<CollectiveKind>(curve);
      point.key.nranks = 2;
      point.key.size_bytes = std::size_t{8} << (2 * s);
      for (int run = 0; run < kRuns; ++run) {
        point.runs.push_back(static_cast<std::size_t>(run));
        point.medians_s.push_back(1e-6 * (run >= kChangedFrom ? change : 1) *
                                  std::exp(noise(engine)));
      }
    }
  std::vector<HostProbe> probes(kRuns - 1, probe_copying_at(10));
  probes.push_back(probe_copying_at(4));
  judge_trend(trend, probes);
  return trend;
}

TEST(TrendFiles, AChangeBeyondTheHostsReachIsFoundInAStateTheHistoryLacks) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Trend trend = trend_in_a_new_host_state(10, seed);
    ASSERT_FALSE(trend.host_state.host_changed().empty());
    for (const TrendPoint& point : trend.points) {
      EXPECT_EQ(point.judged.verdict, Change::slower) << seed << ": " << point.judged.reason;
      EXPECT_EQ(point.judged_runs, kRuns - kChangedFrom) << seed;
    }
    EXPECT_EQ(trend.alerts.size(), kCurvesPerRun) << seed;
    ASSERT_TRUE(trend.night.has_value());
    EXPECT_EQ(trend.night->verdict, Change::slower) << seed << ": " << trend.night->reason;
  }
}

// The negative control: 1.5x is what a host state can do, so it is no verdict there.
TEST(TrendFiles, AChangeWithinTheHostsReachIsUnsureInAStateTheHistoryLacks) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Trend trend = trend_in_a_new_host_state(1.5, seed);
    for (const TrendPoint& point : trend.points) {
      EXPECT_EQ(point.judged.verdict, Change::unsure) << seed;
      EXPECT_NE(point.judged.reason.find("host state not in the history"), std::string::npos)
          << point.judged.reason;
    }
    EXPECT_EQ(trend.alert_count(), 0u) << seed;
  }
}

}  // namespace
}  // namespace collbench
