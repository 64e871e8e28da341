#include "harness/stats/rounds.h"
#include "harness/stats/student_t.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

TEST(StudentT, QuantilesMatchScipy) {
  // scipy.stats.t.ppf(p, df), scipy 1.10.1
  const struct { double p, df, t; } known[] = {
      {0.975, 1, 12.706204736432095}, {0.975, 2, 4.302652729911275},
      {0.975, 3.5, 2.9400886379827775}, {0.975, 4, 2.7764451051977987},
      {0.975, 9.7, 2.237515123671708}, {0.975, 30, 2.0422724563012373},
      {0.975, 1000, 1.9623390808264074}, {0.995, 2, 9.92484320091807},
      {0.9, 4, 1.533206273713144},      {0.995, 1, 63.65674116287399}};
  for (const auto& [p, df, t] : known) {
    EXPECT_NEAR(student_t_quantile(p, df), t, 1e-8 * t) << "p " << p << " df " << df;
    EXPECT_NEAR(student_t_quantile(1 - p, df), -t, 1e-8 * t);
    EXPECT_NEAR(student_t_cdf(t, df), p, 1e-10);
  }
  EXPECT_DOUBLE_EQ(student_t_cdf(0, 3), 0.5);
  EXPECT_THROW(student_t_quantile(1, 3), std::invalid_argument);
  EXPECT_THROW(student_t_cdf(1, 0), std::invalid_argument);
}

TEST(RoundMedians, OnePerRoundWithSamples) {
  const std::vector<double> samples{5, 1, 3, 10, 20, 7};
  const std::vector<std::size_t> starts{0, 3, 3, 5};  // the third round is empty
  EXPECT_EQ(round_medians(samples, starts), (std::vector<double>{3, 15, 7}));
  EXPECT_THROW(round_medians(samples, std::vector<std::size_t>{0, 7}), std::invalid_argument);
}

TEST(RoundNoise, ZeroWithoutASpreadAndTOverRootRWithOne) {
  EXPECT_EQ(round_noise_halfwidth(std::vector<double>{2.0}), 0);
  EXPECT_EQ(round_noise_halfwidth(std::vector<double>{2.0, 2.0, 2.0}), 0);
  const std::vector<double> medians{1.0, std::exp(0.1), std::exp(0.2)};  // log sd 0.1
  EXPECT_NEAR(round_noise_halfwidth(medians), 4.302652729911275 * 0.1 / std::sqrt(3.0), 1e-9);
  // never narrower than the interval within
  const Interval joined = with_round_noise({0.5, 3.0}, 1.0, 0.1);
  EXPECT_DOUBLE_EQ(joined.low, 0.5);
  EXPECT_DOUBLE_EQ(joined.high, 3.0);
  const Interval widened = with_round_noise({0.99, 1.01}, 1.0, 0.1);
  EXPECT_DOUBLE_EQ(widened.low, std::exp(-0.1));
  EXPECT_DOUBLE_EQ(widened.high, std::exp(0.1));
}

// A point in R rounds: each round's times are lognormal around the true median times a round
// factor exp(N(0, between)), with spread `within` inside the round.
struct PlantedPoint {
  std::vector<double> samples;
  std::vector<std::size_t> starts;
};

// Box-Muller on mt19937_64, so that the data are the same with every standard library.
double standard_normal(std::mt19937_64& engine) {
  const auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) / 9007199254740992.0; };
  return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform());
}

PlantedPoint planted(double median, int rounds, std::size_t per_round, double between,
                     double within, std::mt19937_64& engine) {
  const auto normal = [&engine] { return standard_normal(engine); };
  PlantedPoint point;
  for (int r = 0; r < rounds; ++r) {
    point.starts.push_back(point.samples.size());
    const double location = median * std::exp(between * normal());
    for (std::size_t i = 0; i < per_round; ++i)
      point.samples.push_back(location * std::exp(within * normal()));
  }
  return point;
}

Interval point_interval(const PlantedPoint& point) {
  const Summary summary = summarize(point.samples);
  return with_round_noise({summary.ci_low, summary.ci_high}, summary.median,
                          round_noise_halfwidth(round_medians(point.samples, point.starts)));
}

TEST(RoundNoise, IntervalCoversTheTrueMedianDespitePlantedRoundNoise) {
  constexpr double kTrue = 10e-6;
  for (const int rounds : {3, 5}) {
    int covered = 0, covered_within_only = 0;
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
      std::mt19937_64 engine(seed);
      const PlantedPoint point = planted(kTrue, rounds, 200, 0.05, 0.02, engine);
      const Interval interval = point_interval(point);
      covered += interval.low <= kTrue && kTrue <= interval.high;
      const Summary summary = summarize(point.samples);
      covered_within_only += summary.ci_low <= kTrue && kTrue <= summary.ci_high;
    }
    std::printf("%d rounds, 5%% between and 2%% within: covered %d/100 (samples alone %d/100)\n",
                rounds, covered, covered_within_only);
    EXPECT_GE(covered, 93) << rounds << " rounds";
    // The samples' own interval knows nothing of the rounds: it misses most of the time.
    EXPECT_LE(covered_within_only, 50) << rounds << " rounds";
  }
}

TEST(RoundNoise, WithoutRoundNoiseTheIntervalStaysNearTheOneWithin) {
  double widening = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    std::mt19937_64 engine(seed);
    const PlantedPoint point = planted(10e-6, 5, 400, 0, 0.02, engine);
    const Summary summary = summarize(point.samples);
    const Interval interval = point_interval(point);
    widening += (interval.high - interval.low) / (summary.ci_high - summary.ci_low);
  }
  std::printf("no round noise: the interval %.2fx as wide as the samples' own\n", widening / 100);
  EXPECT_LT(widening / 100, 1.5);
}

TEST(RoundsSoFar, NeedEarlierRoundsAndARoundStillToCome) {
  const Interval far{2.0, 2.01};
  EXPECT_FALSE(RoundsSoFar().cannot_converge(far));
  EXPECT_FALSE(RoundsSoFar(std::vector<double>{}, 3, 0.01).cannot_converge(far));
  EXPECT_FALSE(RoundsSoFar(std::vector<double>{1.0}, 1, 0.01).cannot_converge(far));
  EXPECT_TRUE(RoundsSoFar(std::vector<double>{1.0}, 3, 0.01).cannot_converge(far));
  // an interval that holds the earlier median leaves agreement possible, however wide
  EXPECT_FALSE(RoundsSoFar(std::vector<double>{1.0}, 3, 0.01).cannot_converge({0.5, 2.0}));
  EXPECT_FALSE(RoundsSoFar(std::vector<double>{1.0, 1.0}, 3, 0.01).cannot_converge({0.999, 1.001}));
  // earlier rounds that disagree settle it whatever the current one measures
  EXPECT_TRUE(RoundsSoFar(std::vector<double>{1.0, 1.1}, 5, 0.01).cannot_converge({1.04, 1.06}));
}

// Over many random cases: when it says the point cannot converge, no current median inside the
// interval and no later medians bring the point's round noise under the target; when it says
// it can, the completion it reasons about (the current median nearest the earlier ones' mean,
// later ones at the mean) does.
TEST(RoundsSoFar, AreExactAboutWhatLaterRoundsCanDo) {
  std::mt19937_64 engine(11);
  std::uniform_real_distribution<double> unit(0, 1);
  constexpr double kTarget = 0.01;
  int settled = 0, open = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int rounds = 2 + static_cast<int>(unit(engine) * 5);
    const int known = 1 + static_cast<int>(unit(engine) * (rounds - 1));  // earlier + current
    std::vector<double> earlier;
    for (int r = 0; r + 1 < known; ++r) earlier.push_back(std::exp(0.02 * standard_normal(engine)));
    if (earlier.empty()) earlier.push_back(1.0);
    const double low = std::exp(0.03 * standard_normal(engine));
    const Interval current{low, low * std::exp(0.02 * unit(engine))};
    const bool cannot = RoundsSoFar(earlier, rounds, kTarget).cannot_converge(current);
    if (cannot) {
      ++settled;
      for (int completion = 0; completion < 20; ++completion) {
        std::vector<double> all = earlier;
        all.push_back(std::exp(std::log(current.low) +
                               unit(engine) * std::log(current.high / current.low)));
        while (static_cast<int>(all.size()) < rounds)
          all.push_back(std::exp(0.02 * standard_normal(engine)));
        ASSERT_GT(std::expm1(round_noise_halfwidth(all)), kTarget) << "trial " << trial;
      }
    } else {
      ++open;
      double mean_log = 0;
      for (double m : earlier) mean_log += std::log(m) / earlier.size();
      std::vector<double> all = earlier;
      all.push_back(std::clamp(std::exp(mean_log), current.low, current.high));
      double all_mean = 0;
      for (double m : all) all_mean += std::log(m) / all.size();
      while (static_cast<int>(all.size()) < rounds) all.push_back(std::exp(all_mean));
      ASSERT_LE(std::expm1(round_noise_halfwidth(all)), kTarget * (1 + 1e-9)) << "trial " << trial;
    }
  }
  std::printf("cannot converge: %d, still can: %d of 4000\n", settled, open);
  EXPECT_GT(settled, 400);
  EXPECT_GT(open, 400);
}

}  // namespace
}  // namespace collbench
