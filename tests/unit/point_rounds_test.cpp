#include "harness/measure/point_rounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

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

PointResult round_of(std::vector<double> times, StopReason reason) {
  PointResult point;
  point.key.collective = CollectiveKind::allreduce;
  point.key.nranks = 2;
  point.key.size_bytes = 1000;
  point.stop_reason = reason;
  point.samples.nranks = 2;
  point.samples.world_ranks = {0, 1};
  for (double t : times) point.samples.per_rank_seconds.insert(point.samples.per_rank_seconds.end(), {t, t / 2});
  return point;
}

std::vector<double> around(double center, int n) {
  std::vector<double> times;
  for (int i = 0; i < n; ++i) times.push_back(center * (1 + 0.001 * (i % 7 - 3)));
  return times;
}

TEST(PointRounds, SamplesFollowEachOtherAndTheWorstLimitStays) {
  PointResult point = round_of({1e-6, 2e-6}, StopReason::converged);
  point.wrong = 0;
  add_round(point, round_of({3e-6}, StopReason::max_time));
  add_round(point, round_of({4e-6, 5e-6}, StopReason::converged));
  EXPECT_EQ(point.samples.round_starts, (std::vector<std::size_t>{0, 2, 3}));
  EXPECT_EQ(point.samples.sample_count(), 5u);
  EXPECT_EQ(point.stop_reason, StopReason::max_time);
  EXPECT_EQ(point.wrong, 0);  // the first round's validation
  finish_point(point, 0.01);
  EXPECT_EQ(point.summary.samples, 5u);
  EXPECT_DOUBLE_EQ(point.summary.median, 3e-6);
  EXPECT_DOUBLE_EQ(point.rank_median_seconds[1], 1.5e-6);
  EXPECT_DOUBLE_EQ(point.algbw_gbps, 1000 / 3e-6 / 1e9);
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

}  // namespace
}  // namespace collbench
