// compare --interleaved, on simulated allocations: 3 curves of 24 sizes; each pair of launches
// shares a host state (heavy-tailed, 10% sd on the log scale, the same for every point: what
// makes this VM's launches 2-4x apart) that A's and B's launch feel alike but for a 1% drift,
// and each launch adds its own effect per point (1-9% sd, median 3%, Student's t(4)). Rates are
// counted over many allocations; the sequential rule is the one ci/interleave follows.
#include "harness/compare/interleaved_verdicts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "harness/compare/compare_files.h"

namespace collbench {
namespace {

constexpr int kPairCurves = 3, kPairSizes = 24;

// With `other_state`, each launch alone finds the host in its other state with that chance (every
// point 2.2x faster), so that A and B of a pair can differ by it.
std::vector<LaunchPairs> simulated_pairs(std::uint64_t seed, double b_factor, int pairs,
                                         double other_state = 0) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> unit;
  std::student_t_distribution<double> heavy(4);
  std::bernoulli_distribution state(other_state);
  const double heavy_sd = std::sqrt(4.0 / 2);
  const double faster = -std::log(2.2);
  std::vector<double> host, drift_a, drift_b;
  for (int i = 0; i < pairs; ++i) {
    host.push_back(0.10 * heavy(engine) / heavy_sd);
    drift_a.push_back(0.01 * unit(engine) + (state(engine) ? faster : 0));
    drift_b.push_back(0.01 * unit(engine) + (state(engine) ? faster : 0));
  }
  std::vector<LaunchPairs> points;
  for (int curve = 0; curve < kPairCurves; ++curve)
    for (int s = 0; s < kPairSizes; ++s) {
      LaunchPairs point;
      point.key.collective = static_cast<CollectiveKind>(curve);
      point.key.nranks = 2;
      point.key.size_bytes = std::size_t{8} << s;
      const double level = 1e-6 * std::pow(1.6, s);
      const double sd = std::clamp(0.03 * std::exp(0.5 * unit(engine)), 0.01, 0.09);
      const auto own = [&] { return sd * heavy(engine) / heavy_sd; };
      for (int i = 0; i < pairs; ++i) {
        point.a_s.push_back(level * std::exp(host[i] + drift_a[i] + own()));
        point.b_s.push_back(b_factor * level * std::exp(host[i] + drift_b[i] + own()));
      }
      points.push_back(point);
    }
  return points;
}

struct Outcome {
  ChangeCounts counts;
  bool alert = false;
  Change overall = Change::unsure;
  int pairs = 0;
};

Outcome judged(const std::vector<LaunchPairs>& points) {
  const auto verdicts = judge_pairs(points, CompareOptions{});
  std::vector<PointKey> keys;
  for (const auto& point : points) keys.push_back(point.key);
  Outcome outcome;
  for (const auto& v : verdicts) outcome.counts.add(v.verdict);
  outcome.alert = !grouped_sizes(keys, verdicts, Change::slower).empty();
  outcome.overall = overall_change(outcome.counts, outcome.alert,
                                   !grouped_sizes(keys, verdicts, Change::faster).empty());
  outcome.pairs = static_cast<int>(points.front().a_s.size());
  return outcome;
}

// The first `pairs` pairs of an allocation.
std::vector<LaunchPairs> first(std::vector<LaunchPairs> points, int pairs) {
  for (auto& point : points) {
    point.a_s.resize(pairs);
    point.b_s.resize(pairs);
  }
  return points;
}

// ci/interleave's rule: 3 pairs, then one more while the answer is UNSURE or NOISY, up to 8.
Outcome sequential(const std::vector<LaunchPairs>& allocation) {
  for (int pairs = 3;; ++pairs) {
    const Outcome outcome = judged(first(allocation, pairs));
    if (pairs == 8 || (outcome.overall != Change::unsure && outcome.overall != Change::noisy))
      return outcome;
  }
}

struct PairRates {
  double points_slower_or_faster = 0, points_slower = 0, alerted = 0, mean_pairs = 0;
};

template <typename Judge>
PairRates pair_rates(double b_factor, int allocations, Judge judge, double other_state = 0) {
  std::size_t changed = 0, slower = 0, points = 0, alerted = 0, pairs = 0;
  for (int a = 0; a < allocations; ++a) {
    const Outcome o = judge(simulated_pairs(5000 + a, b_factor, 8, other_state));
    changed += o.counts.slower + o.counts.faster;
    slower += o.counts.slower;
    points += o.counts.same + o.counts.faster + o.counts.slower + o.counts.unsure + o.counts.noisy;
    alerted += o.alert;
    pairs += o.pairs;
  }
  const auto share = [&](std::size_t n, std::size_t of) {
    return static_cast<double>(n) / static_cast<double>(of);
  };
  const PairRates r{share(changed, points), share(slower, points),
                share(alerted, static_cast<std::size_t>(allocations)),
                share(pairs, static_cast<std::size_t>(allocations))};
  std::printf(
      "B/A %.2f, host in its other state %.0f%% of launches, over %d allocations: %.2f%% "
      "of points SLOWER or FASTER, %.2f%% SLOWER, %.1f%% alerted, %.2f pairs on average\n",
      b_factor, 100 * other_state, allocations, 100 * r.points_slower_or_faster,
      100 * r.points_slower, 100 * r.alerted, r.mean_pairs);
  return r;
}

const auto four_pairs = [](const std::vector<LaunchPairs>& a) { return judged(first(a, 4)); };

TEST(InterleavedVerdicts, FourUnchangedPairsRaiseFewAlarms) {
  const PairRates r = pair_rates(1.0, 400, four_pairs);
  EXPECT_LE(r.points_slower_or_faster, 0.05);
  EXPECT_LE(r.alerted, 0.05);
}

TEST(InterleavedVerdicts, FourPairsFindTenPercent) {
  const PairRates r = pair_rates(1.10, 200, four_pairs);
  EXPECT_GE(r.points_slower, 0.5);
  EXPECT_GE(r.alerted, 0.95);
}

// A pair whose launches found the host in different states moves all its points together: that
// is the shared part of the launch effect, judged on the pairs' few degrees of freedom, so it
// widens the intervals (NOISY) instead of raising alarms. A change of 1.5x, smaller than the
// host's 2.2x, is then found in about two allocations of three (64% measured): the price of
// not calling the host's moves a change.
TEST(InterleavedVerdicts, AHostThatChangesStateRaisesFewAlarms) {
  const PairRates r = pair_rates(1.0, 400, four_pairs, 0.25);
  EXPECT_LE(r.points_slower_or_faster, 0.05);
  EXPECT_LE(r.alerted, 0.05);
}

TEST(InterleavedVerdicts, AHostThatChangesStateStillFindsFiftyPercentMostOfTheTime) {
  const PairRates r = pair_rates(1.5, 200, sequential, 0.25);
  EXPECT_GE(r.alerted, 0.5);
}

TEST(InterleavedVerdicts, TheSequentialRuleKeepsFalseAlarmsLow) {
  const PairRates r = pair_rates(1.0, 400, sequential);
  EXPECT_LE(r.points_slower_or_faster, 0.05);
  EXPECT_LE(r.alerted, 0.05);
  EXPECT_GE(r.mean_pairs, 3);
}

TEST(InterleavedVerdicts, TheSequentialRuleFindsTenPercent) {
  const PairRates r = pair_rates(1.10, 200, sequential);
  EXPECT_GE(r.alerted, 0.95);
}

TEST(InterleavedVerdicts, TheObservedRatioIsTheGeometricMeanOfThePairs) {
  const auto points = simulated_pairs(9, 1.0, 4);
  const auto verdicts = judge_pairs(points, CompareOptions{});
  for (std::size_t i = 0; i < points.size(); ++i) {
    double log_sum = 0;
    for (int k = 0; k < 4; ++k) log_sum += std::log(points[i].b_s[k] / points[i].a_s[k]);
    EXPECT_NEAR(std::log(verdicts[i].observed_ratio), log_sum / 4, 1e-12);
    EXPECT_EQ(verdicts[i].launches, 4u);
  }
}

TEST(InterleavedVerdicts, OnePairIsUnsureSayingWhy) {
  for (const auto& v : judge_pairs(simulated_pairs(3, 2.0, 1), CompareOptions{})) {
    EXPECT_EQ(v.verdict, Change::unsure);
    EXPECT_NE(v.reason.find("1 pair of launches"), std::string::npos);
  }
}

}  // namespace
}  // namespace collbench
