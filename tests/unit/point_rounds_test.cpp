#include "harness/measure/point_rounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "harness/stats/stopping_rule.h"

namespace collbench {
namespace {

TEST(RoundOrder, ReshuffledEveryRoundButTheLastWhichKeepsTheSweepOrder) {
  const std::vector<std::size_t> sweep_order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(round_order(12, 2, 3, 7), sweep_order);
  EXPECT_EQ(round_order(12, 0, 1, 7), sweep_order);  // one round: the plain sweep
  const auto first = round_order(12, 0, 3, 7), second = round_order(12, 1, 3, 7);
  EXPECT_NE(first, sweep_order);
  EXPECT_NE(first, second);
  EXPECT_EQ(first, round_order(12, 0, 3, 7));  // the same on every rank
  for (auto order : {first, second}) {
    std::ranges::sort(order);
    EXPECT_EQ(order, sweep_order);
  }
}

// A round as rank 1 of 2 holds it, rank 0's samples and slowest times with it: rank 0 takes
// `times`, rank 1 half of each.
PointResult round_of(std::vector<double> times, StopReason reason) {
  PointResult point;
  point.key.collective = CollectiveKind::allreduce;
  point.key.nranks = 2;
  point.key.size_bytes = 1000;
  point.stop_reason = reason;
  point.samples.nranks = 2;
  point.samples.world_ranks = {0, 1};
  for (double t : times) {
    point.samples.per_rank_seconds.insert(point.samples.per_rank_seconds.end(), {t, t / 2});
    point.own_seconds.push_back(t / 2);
  }
  point.slowest.seconds = times;
  return point;
}

std::vector<double> around(double center, int n) {
  std::vector<double> times;
  for (int i = 0; i < n; ++i) times.push_back(center * (1 + 0.001 * (i % 7 - 3)));
  return times;
}

TEST(PointRounds, SamplesFollowEachOtherAndTheWorstLimitStays) {
  PointResult point = round_of({1e-6, 2e-6}, StopReason::converged);
  point.checks.before_timing = 0;
  add_round(point, round_of({3e-6}, StopReason::max_time));
  PointResult last = round_of({4e-6, 5e-6}, StopReason::converged);
  last.checks.after_timing = 12;
  add_round(point, std::move(last));
  EXPECT_EQ(point.samples.round_starts, (std::vector<std::size_t>{0, 2, 3}));
  EXPECT_EQ(point.slowest.round_starts, (std::vector<std::size_t>{0, 2, 3}));
  EXPECT_EQ(point.samples.sample_count(), 5u);
  EXPECT_EQ(point.stop_reason, StopReason::max_time);
  EXPECT_EQ(point.checks.before_timing, 0);  // the first round's check
  EXPECT_EQ(point.checks.after_timing, 12);  // the last round's
  EXPECT_EQ(point.checks.wrong(), 12);
  finish_point(point, 0.01);
  EXPECT_EQ(point.summary.samples, 5u);
  EXPECT_DOUBLE_EQ(point.summary.median, 3e-6);
  EXPECT_DOUBLE_EQ(own_median(point), 1.5e-6);
  EXPECT_TRUE(std::isnan(own_median(PointResult{})));  // a rank that took no part
  EXPECT_DOUBLE_EQ(point.algbw_gbps, 1000 / 3e-6 / 1e9);
}

// OSU's figure: each rank's mean over all of its samples, every round, then the ranks' average;
// not the mean of the slowest rank's times, nor anything of the samples' medians.
TEST(PointRounds, OsuMeanAveragesEachRanksMeanOverItsRounds) {
  // Two rounds of three ranks, planted: rank r's k-th sample of a round, in microseconds.
  const std::vector<std::vector<double>> first{{0.5, 0.6, 4.0}, {0.8, 0.9, 0.7}, {1.0, 0.4, 0.5}};
  const std::vector<std::vector<double>> second{{0.6, 0.5}, {0.8, 0.8}, {0.4, 2.0}};
  std::vector<double> rank_means;
  double slowest_sum = 0;
  for (std::size_t rank = 0; rank < 3; ++rank) {
    PointResult mine;  // the point as this rank holds it after both rounds
    mine.key.mode = Mode::latency;
    for (const auto* round : {&first, &second}) {
      PointResult part;
      for (double us : (*round)[rank]) part.own_seconds.push_back(us * 1e-6);
      add_round(mine, std::move(part));
    }
    rank_means.push_back(own_mean(mine));
  }
  EXPECT_NEAR(rank_means[0], 6.2e-6 / 5, 1e-15);
  EXPECT_NEAR(rank_means[1], 4.0e-6 / 5, 1e-15);
  EXPECT_NEAR(rank_means[2], 4.3e-6 / 5, 1e-15);
  for (std::size_t k = 0; k < 3; ++k)
    slowest_sum += std::max({first[0][k], first[1][k], first[2][k]});
  for (std::size_t k = 0; k < 2; ++k)
    slowest_sum += std::max({second[0][k], second[1][k], second[2][k]});

  PointResult point;
  point.key.mode = Mode::latency;
  point.key.sync = SampleStart::barrier;
  const double osu = osu_mean(point, rank_means);
  EXPECT_NEAR(osu, 14.5e-6 / 15, 1e-15);
  EXPECT_LT(osu, slowest_sum * 1e-6 / 5);  // the slowest rank's mean is another figure
  EXPECT_TRUE(std::isnan(own_mean(PointResult{})));  // a rank that took no part

  point.key.sync = SampleStart::window;  // its own times are ends after t0
  EXPECT_TRUE(std::isnan(osu_mean(point, rank_means)));
  point.key.sync = SampleStart::barrier;
  point.key.mode = Mode::bandwidth;
  EXPECT_TRUE(std::isnan(osu_mean(point, rank_means)));
}

// Three rounds of one reading each: a 10 ns timer's 0.6 us, 200 times. The samples alone pin
// the median to nothing (an interval of 0 ns); read in steps, the point knows it to half a step
// either side, is held to two steps (3.3%) and converges at a 1% target; a step it cannot reach
// (2 steps over 1% of the median) is no reason to call its rounds noisy.
TEST(PointRounds, APointReadInStepsIsKnownToHalfAStepAndHeldToTwo) {
  const std::vector<double> tied(200, 0.6e-6);
  for (const double step : {0.0, 10e-9}) {
    PointResult point = round_of(tied, StopReason::converged);
    point.sample_step_s = step;
    add_round(point, round_of(tied, StopReason::converged));
    add_round(point, round_of(tied, StopReason::converged));
    finish_point(point, 0.01);
    EXPECT_EQ(point.stop_reason, StopReason::converged) << step;
    EXPECT_DOUBLE_EQ(point.summary.ci_low, 0.6e-6 - step / 2);
    EXPECT_DOUBLE_EQ(point.summary.ci_high, 0.6e-6 + step / 2);
  }
  // Rounds a step apart: told the step, their medians agree within it.
  PointResult apart = round_of(tied, StopReason::converged);
  apart.sample_step_s = 10e-9;
  add_round(apart, round_of(std::vector<double>(200, 0.61e-6), StopReason::converged));
  add_round(apart, round_of(tied, StopReason::converged));
  finish_point(apart, 0.01);
  EXPECT_EQ(apart.stop_reason, StopReason::converged);
  EXPECT_LE(relative_ci_halfwidth(apart.summary), 2 * 10e-9 / 0.6e-6);
}

TEST(PointRounds, AgreeingRoundsConvergeDisagreeingOnesAreHeldBack) {
  PointResult steady = round_of(around(1e-5, 200), StopReason::converged);
  add_round(steady, round_of(around(1e-5, 200), StopReason::converged));
  add_round(steady, round_of(around(1e-5, 200), StopReason::converged));
  finish_point(steady, 0.01);
  EXPECT_EQ(steady.stop_reason, StopReason::converged);
  EXPECT_LT(relative_ci_halfwidth(steady.summary), 0.01);

  PointResult shifting = round_of(around(1e-5, 200), StopReason::converged);
  add_round(shifting, round_of(around(1.05e-5, 200), StopReason::converged));
  add_round(shifting, round_of(around(0.97e-5, 200), StopReason::converged));
  finish_point(shifting, 0.01);
  EXPECT_EQ(shifting.stop_reason, StopReason::round_noise);
  EXPECT_FALSE(converged(shifting));
  // the interval now reaches past the rounds' own medians
  EXPECT_LT(shifting.summary.ci_low, 0.97e-5);
  EXPECT_GT(shifting.summary.ci_high, 1.05e-5);
}

// A point measured as the sweep does, with planted noise: round r's times are lognormal with
// spread `within` around true * exp(between * z_r). Each round samples until its StoppingState
// stops it, told the earlier rounds' medians or not.
struct Simulated {
  PointResult point;
  std::size_t samples = 0;
};

// Box-Muller on mt19937_64, so that the data are the same with every standard library.
double standard_normal(std::mt19937_64& engine) {
  const auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) / 9007199254740992.0; };
  return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform());
}

Simulated simulate(std::uint64_t seed, double between, bool told_earlier_rounds) {
  constexpr int kRounds = 3;
  constexpr double kTrue = 1e-5, kWithin = 0.1;
  // Each round its own stream: the same samples with or without the rule, however many it took.
  std::mt19937_64 levels(seed);
  StoppingRule rule;
  rule.min_samples = 4;
  rule.target_ci = 0.01 * std::sqrt(kRounds);
  rule.max_time_s = 1e9;
  rule.rounds = kRounds;
  rule.point_target_ci = 0.01;
  Simulated simulated;
  for (int r = 0; r < kRounds; ++r) {
    const double location = kTrue * std::exp(between * standard_normal(levels));
    std::mt19937_64 engine(seed * kRounds + r + 1000);
    StoppingState state(rule, std::nullopt,
                        told_earlier_rounds && r > 0 ? round_estimates_of(simulated.point)
                                                     : std::vector<RoundMedian>{});
    std::vector<double> times;
    std::optional<StopReason> reason;
    while (!reason) {
      times.push_back(location * std::exp(kWithin * standard_normal(engine)));
      state.add(times.back());
      reason = state.decide(0);
    }
    simulated.samples += times.size();
    if (r == 0)
      simulated.point = round_of(times, *reason);
    else
      add_round(simulated.point, round_of(times, *reason));
  }
  finish_point(simulated.point, 0.01);
  return simulated;
}

// Over 100 seeds per level of planted noise between rounds: a round stopped because the rounds
// already disagree leaves a point held back by round noise every time, the points that converge
// without the rule converge with it, the interval still covers the true median, and the
// samples drop where rounds disagree.
TEST(PointRounds, StoppingRoundsThatDisagreeKeepsVerdictsAndCoverage) {
  for (const double between : {0.0, 0.01, 0.05}) {
    int early = 0, early_held_back = 0, lost_convergence = 0, covered = 0, converged = 0;
    std::size_t told = 0, untold = 0;
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
      const Simulated with = simulate(seed, between, true);
      const Simulated without = simulate(seed, between, false);
      told += with.samples;
      untold += without.samples;
      const bool stopped_early = with.samples < without.samples;
      early += stopped_early;
      early_held_back += stopped_early && with.point.stop_reason == StopReason::round_noise;
      lost_convergence += without.point.stop_reason == StopReason::converged &&
                          with.point.stop_reason != StopReason::converged;
      converged += with.point.stop_reason == StopReason::converged;
      covered += with.point.summary.ci_low <= 1e-5 && 1e-5 <= with.point.summary.ci_high;
    }
    std::printf("between %.0f%%: %d/100 stopped early, samples %.2fx; lost convergence %d, "
                "converged %d, covered %d/100\n",
                between * 100, early, static_cast<double>(told) / untold, lost_convergence,
                converged, covered);
    EXPECT_EQ(early_held_back, early);
    EXPECT_LE(lost_convergence, 5);
    if (between > 0) {
      EXPECT_GE(covered, 93);
    }
  }
}

}  // namespace
}  // namespace collbench
