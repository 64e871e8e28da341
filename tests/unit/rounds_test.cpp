#include "harness/stats/rounds.h"
#include "harness/stats/sampling_distributions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "harness/stats/reading_step.h"
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

TEST(ChiSquared, QuantilesMatchClosedForms) {
  // Closed forms of the CDF for 1 to 4 degrees of freedom (erf and exp), inverted by bisection.
  const struct { double p, df, x; } known[] = {
      {0.6, 1, 0.708326300800794},  {0.6, 2, 1.83258146374831},  {0.6, 3, 2.94616607310195},
      {0.6, 4, 4.04462649064931},   {0.95, 1, 3.84145882069412}, {0.95, 4, 9.48772903678115},
      {0.75, 2, 2.77258872223978},  {0.05, 3, 0.351846317749272}};
  for (const auto& [p, df, x] : known) {
    EXPECT_NEAR(chi_squared_quantile(p, df), x, 1e-8 * x) << "p " << p << " df " << df;
    EXPECT_NEAR(chi_squared_cdf(x, df), p, 1e-10);
  }
  EXPECT_EQ(chi_squared_cdf(0, 2), 0);
  EXPECT_THROW(chi_squared_quantile(0, 2), std::invalid_argument);
  EXPECT_THROW(chi_squared_cdf(1, 0), std::invalid_argument);
}

TEST(RoundEstimates, OnePerRoundWithSamplesAndAVarianceWhereItHasAnInterval) {
  const std::vector<double> samples{5, 1, 3, 10, 20, 7, 1, 2, 3, 4, 5, 6};
  const std::vector<std::size_t> starts{0, 3, 3, 5, 6};  // the third round is empty
  const auto rounds = round_estimates(samples, starts);
  EXPECT_EQ(medians_of(rounds), (std::vector<double>{3, 15, 7, 3.5}));
  for (std::size_t j = 0; j < 3; ++j) EXPECT_TRUE(std::isnan(rounds[j].log_variance)) << j;
  // six samples: the interval is the smallest and largest, [1, 6]
  EXPECT_DOUBLE_EQ(rounds[3].log_variance, log_variance_of({1, 6}));
  EXPECT_NEAR(log_variance_of({1, std::exp(2 * 1.959963984540054 * 0.01)}), 1e-4, 1e-15);
  EXPECT_THROW(round_estimates(samples, std::vector<std::size_t>{0, 13}), std::invalid_argument);
}

std::vector<RoundMedian> with_variance(std::vector<double> medians, double log_sd) {
  std::vector<RoundMedian> rounds;
  for (double median : medians) rounds.push_back({median, log_sd * log_sd});
  return rounds;
}

// How far apart round medians lie, as the table prints it: the rounds within ±spread of the
// middle of their range, under 1 however far apart; none with a single round.
TEST(RoundSpread, HalfTheRangeOverItsMiddle) {
  const auto rounds = [](std::vector<double> medians) {
    std::vector<RoundMedian> result;
    for (double median : medians) result.push_back({median});
    return result;
  };
  EXPECT_DOUBLE_EQ(round_spread(rounds({1.0, 1.1, 2.0})), 1.0 / 3);  // 2x apart: ±33%
  EXPECT_DOUBLE_EQ(round_spread(rounds({0.35, 0.7})), 1.0 / 3);
  EXPECT_DOUBLE_EQ(round_spread(rounds({2.0, 2.0, 2.0})), 0);
  EXPECT_LT(round_spread(rounds({1.0, 1e6})), 1);
  EXPECT_TRUE(std::isnan(round_spread(rounds({1.0}))));
  EXPECT_TRUE(std::isnan(round_spread({})));
}

TEST(RoundNoise, ZeroWhenTheRoundsAgreeAndTOverRootROtherwise) {
  const std::vector<double> medians{1.0, std::exp(0.1), std::exp(0.2)};  // log sd 0.1
  const double spread = 4.302652729911275 * 0.1 / std::sqrt(3.0);
  EXPECT_EQ(round_noise_halfwidth(with_variance({2.0}, 0.01)), 0);
  EXPECT_EQ(round_noise_halfwidth(with_variance({2.0, 2.0, 2.0}, 0.01)), 0);
  // Q = 0.02 / variance against chi-squared(2)'s quantile at 0.6, 1.83
  EXPECT_NEAR(round_noise_halfwidth(with_variance(medians, 0.01)), spread, 1e-9);  // Q 200
  EXPECT_NEAR(round_noise_halfwidth(with_variance(medians, 0.1)), spread, 1e-9);   // Q 2
  EXPECT_TRUE(rounds_agree(with_variance(medians, 0.2)));                          // Q 0.5
  EXPECT_EQ(round_noise_halfwidth(with_variance(medians, 0.2)), 0);
  // a round without an interval of its own cannot show agreement
  auto unknown = with_variance(medians, 0.2);
  unknown[1].log_variance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(rounds_agree(unknown));
  EXPECT_NEAR(round_noise_halfwidth(unknown), spread, 1e-9);
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
                          round_noise_halfwidth(round_estimates(point.samples, point.starts)));
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

// Three rounds of 200 samples with 2% spread inside each (a round median's standard error is then
// about 0.18%), and noise between rounds from none to 5 standard errors, 1000 seeds each: where
// the noise between rounds is as large as the standard error, the test of agreement misses it
// most often and pools anyway; the interval must still cover the true median in 93% of seeds.
// Without noise between rounds, the rounds agree (and the samples' interval stands) in over half.
TEST(RoundNoise, CoversTheTrueMedianWhateverTheNoiseBetweenRounds) {
  constexpr double kTrue = 10e-6, kWithin = 0.02;
  constexpr std::size_t kPerRound = 200;
  const double standard_error = 1.2533 * kWithin / std::sqrt(static_cast<double>(kPerRound));
  for (const double ratio : {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0}) {
    int covered = 0, agreed = 0;
    for (std::uint64_t seed = 0; seed < 1000; ++seed) {
      std::mt19937_64 engine(seed);
      const PlantedPoint point = planted(kTrue, 3, kPerRound, ratio * standard_error, kWithin, engine);
      const Interval interval = point_interval(point);
      covered += interval.low <= kTrue && kTrue <= interval.high;
      agreed += rounds_agree(round_estimates(point.samples, point.starts));
    }
    std::printf("noise between rounds %.1f standard errors: covered %d/1000, rounds agreed %d/1000\n",
                ratio, covered, agreed);
    EXPECT_GE(covered, 930) << ratio;
    if (ratio == 0) {
      EXPECT_GE(agreed, 500);
    }
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

// Earlier rounds that each converged to about 1.7% (a round's share of 1% over 3 rounds).
std::vector<RoundMedian> converged_rounds(std::vector<double> medians) {
  return with_variance(std::move(medians), 0.017 / 1.959963984540054);
}

TEST(RoundsSoFar, NeedEarlierRoundsAndARoundStillToCome) {
  const Interval far{2.0, 2.01};
  EXPECT_FALSE(RoundsSoFar().cannot_converge(far));
  EXPECT_FALSE(RoundsSoFar(converged_rounds({}), 3, 0.01).cannot_converge(far));
  EXPECT_FALSE(RoundsSoFar(converged_rounds({1.0}), 1, 0.01).cannot_converge(far));
  EXPECT_TRUE(RoundsSoFar(converged_rounds({1.0}), 3, 0.01).cannot_converge(far));
  // an interval that holds the earlier median leaves agreement possible, however wide
  EXPECT_FALSE(RoundsSoFar(converged_rounds({1.0}), 3, 0.01).cannot_converge({0.5, 2.0}));
  EXPECT_FALSE(RoundsSoFar(converged_rounds({1.0, 1.0}), 3, 0.01).cannot_converge({0.999, 1.001}));
  // earlier rounds that disagree settle it whatever the current one measures
  EXPECT_TRUE(RoundsSoFar(converged_rounds({1.0, 1.1}), 5, 0.01).cannot_converge({1.04, 1.06}));
  // medians 1.5% apart are too far for the spread of 3 rounds to certify 1%, but close enough
  // for rounds this precise to agree: the round goes on
  EXPECT_FALSE(RoundsSoFar(converged_rounds({1.0}), 3, 0.01).cannot_converge({1.01, 1.02}));
  // ...and a current round so wide that it says nothing yet cannot show disagreement
  EXPECT_FALSE(RoundsSoFar(converged_rounds({1.0}), 3, 0.01).cannot_converge({1.05, 2.0}));
}

// Over many random cases: when it says the point cannot converge, no completion brings its
// interval under the target: the current median anywhere inside its interval and its variance
// no larger than now (more samples), later rounds anywhere. When it says it can, the completion
// it reasons about does: the current median nearest the earlier ones, later rounds at the mean.
TEST(RoundsSoFar, AreExactAboutWhatLaterRoundsCanDo) {
  std::mt19937_64 engine(11);
  std::uniform_real_distribution<double> unit(0, 1);
  constexpr double kTarget = 0.01;
  int settled = 0, open = 0;
  const auto log_mean = [](const std::vector<RoundMedian>& rounds, bool weighted) {
    double sum = 0, weights = 0;
    for (const RoundMedian& round : rounds) {
      const double weight = weighted ? 1 / round.log_variance : 1;
      sum += weight * std::log(round.median);
      weights += weight;
    }
    return sum / weights;
  };
  for (int trial = 0; trial < 4000; ++trial) {
    const int rounds = 2 + static_cast<int>(unit(engine) * 5);
    const int known = 1 + static_cast<int>(unit(engine) * (rounds - 1));  // earlier + current
    std::vector<RoundMedian> earlier;
    for (int r = 0; r + 1 < known || earlier.empty(); ++r)
      earlier.push_back({std::exp(0.02 * standard_normal(engine)), std::pow(0.01 * (0.2 + unit(engine)), 2)});
    const double low = std::exp(0.03 * standard_normal(engine));
    const Interval current{low, low * std::exp(0.05 * unit(engine))};
    const double current_variance = log_variance_of(current);
    const bool cannot = RoundsSoFar(earlier, rounds, kTarget).cannot_converge(current);
    if (cannot) {
      ++settled;
      for (int completion = 0; completion < 20; ++completion) {
        std::vector<RoundMedian> all = earlier;
        all.push_back({std::exp(std::log(current.low) + unit(engine) * std::log(current.high / current.low)),
                       current_variance * unit(engine)});
        while (static_cast<int>(all.size()) < rounds)
          all.push_back({std::exp(0.02 * standard_normal(engine)), std::pow(0.01 * unit(engine), 2)});
        ASSERT_GT(std::expm1(round_noise_halfwidth(all)), kTarget) << "trial " << trial;
      }
    } else {
      ++open;
      // With a target nothing reaches, only agreement is left to ask about.
      const bool agreeing = !RoundsSoFar(earlier, rounds, 1e-9).cannot_converge(current);
      const double center = log_mean(earlier, agreeing);
      std::vector<RoundMedian> all = earlier;
      all.push_back({std::clamp(std::exp(center), current.low, current.high), current_variance});
      const double all_center = log_mean(all, agreeing);
      while (static_cast<int>(all.size()) < rounds) all.push_back({std::exp(all_center), 1e-4});
      ASSERT_LE(std::expm1(round_noise_halfwidth(all)), kTarget * (1 + 1e-9)) << "trial " << trial;
    }
  }
  std::printf("cannot converge: %d, still can: %d of 4000\n", settled, open);
  EXPECT_GT(settled, 400);
  EXPECT_GT(open, 400);
}

// The point as a timer reading in steps of `step` would record it: each sample the difference of
// two readings on the timer's grid, at a random phase.
PlantedPoint read_in_steps(PlantedPoint point, double step, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> phase(0, step);
  for (double& sample : point.samples) {
    const double start = phase(engine);
    sample = step * (std::floor((start + sample) / step) - std::floor(start / step));
  }
  return point;
}

// kvm-clock on an AMD EPYC guest reads in 10 ns steps (harness/measure/timer_step.h). Three
// identical rounds of 400 samples at a 0.6 us median, 1000 seeds per spread: with a 1% spread
// (6 ns, under a step) the samples tie on two or three readings and so do the order statistics
// that bound each round's median, so that, not told the step, identical rounds disagree most of
// the time; told it, they agree about as often as continuous ones (over half), and the interval
// covers the true median (all 1000 seeds told, none not). With a 10% spread the samples span a
// dozen steps and hardly tie: the half step adds little (70% agree, 54% without it).
TEST(RoundNoise, RoundsReadInStepsAgreeOnceTheStepIsKnown) {
  constexpr double kTrue = 0.6e-6, kStep = 10e-9;
  for (const double within : {0.01, 0.1}) {
    int agreed = 0, agreed_blind = 0, covered = 0;
    for (std::uint64_t seed = 0; seed < 1000; ++seed) {
      std::mt19937_64 engine(seed);
      const PlantedPoint point =
          read_in_steps(planted(kTrue, 3, 400, 0, within, engine), kStep, engine);
      const auto rounds = round_estimates(point.samples, point.starts, kStep);
      agreed += rounds_agree(rounds);
      agreed_blind += rounds_agree(round_estimates(point.samples, point.starts));
      const Summary summary = summarize(point.samples);
      const Interval interval = with_round_noise(
          widened_by_step({summary.ci_low, summary.ci_high}, kStep), summary.median,
          round_noise_halfwidth(rounds));
      covered += interval.low <= kTrue && kTrue <= interval.high;
    }
    std::printf("%.0f%% spread read in 10 ns steps at 0.6 us: agreed %d/1000 told the step, "
                "%d/1000 not; covered %d/1000\n", within * 100, agreed, agreed_blind, covered);
    EXPECT_GE(agreed, 500) << within;
    EXPECT_GE(covered, 950) << within;
    if (within < 0.05) {
      EXPECT_LT(agreed_blind, 300);
    } else {
      EXPECT_LT(agreed, agreed_blind + 200);
    }
  }
}

}  // namespace
}  // namespace collbench
