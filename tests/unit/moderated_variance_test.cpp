// The pieces of moderated launch-to-launch variances: the polygamma functions against known
// values, the prior fitted to variances drawn from a known one (over many seeds), and
// Benjamini-Hochberg on a worked example.
#include "harness/stats/moderated_variance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "harness/stats/false_discovery.h"
#include "harness/stats/polygamma.h"

namespace collbench {
namespace {

TEST(Polygamma, KnownValues) {
  constexpr double gamma = 0.57721566490153286;
  EXPECT_NEAR(digamma(1), -gamma, 1e-12);
  EXPECT_NEAR(digamma(0.5), -gamma - 2 * std::log(2.0), 1e-12);
  EXPECT_NEAR(digamma(20), 2.9705239922421490, 1e-12);
  EXPECT_NEAR(trigamma(1), std::numbers::pi * std::numbers::pi / 6, 1e-12);
  EXPECT_NEAR(trigamma(0.5), std::numbers::pi * std::numbers::pi / 2, 1e-11);
  EXPECT_NEAR(tetragamma(1), -2 * 1.2020569031595943, 1e-11);
  for (double x : {0.05, 0.7, 3.0, 45.0, 1e4})
    EXPECT_NEAR(trigamma_inverse(trigamma(x)) / x, 1, 1e-7);
}

struct Drawn {
  std::vector<double> truth, sample;  // each point's σ² and its sample variance
};

// `points` quantities, each with `values` normal draws whose variance σ² follows the scaled
// inverse chi-squared prior (d0, s0²); d0 = 0: every σ² is s0².
Drawn drawn_variances(std::mt19937_64& engine, int points, int values, double d0, double s0) {
  std::chi_squared_distribution<double> prior(d0 > 0 ? d0 : 1);
  std::normal_distribution<double> unit;
  Drawn drawn;
  for (int i = 0; i < points; ++i) {
    const double sigma2 = d0 > 0 ? d0 * s0 / prior(engine) : s0;
    double mean = 0, squares = 0;
    std::vector<double> x(static_cast<std::size_t>(values));
    for (double& v : x) mean += v = std::sqrt(sigma2) * unit(engine);
    mean /= values;
    for (double v : x) squares += (v - mean) * (v - mean);
    drawn.truth.push_back(sigma2);
    drawn.sample.push_back(squares / (values - 1));
  }
  return drawn;
}

TEST(VariancePrior, RecoversAPlantedPriorOverSeeds) {
  constexpr double d0 = 6, s0 = 4e-4;  // launch-to-launch sd 2% on the log scale
  double log_ratio_sum = 0, df_sum = 0;
  constexpr int kSeeds = 200;
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::mt19937_64 engine(seed);
    const Drawn drawn = drawn_variances(engine, 150, 8, d0, s0);
    const std::vector<double> df(drawn.sample.size(), 7);
    const VariancePrior prior = fit_variance_prior(drawn.sample, df);
    log_ratio_sum += std::log(prior.variance / s0);
    df_sum += std::isinf(prior.df) ? 100 : prior.df;
  }
  EXPECT_NEAR(log_ratio_sum / kSeeds, 0, 0.05);  // s0² within 5% on average
  EXPECT_NEAR(df_sum / kSeeds, d0, 1.5);
}

// The point of moderating: over many seeds each point's variance lands nearer its truth (in
// squared log error) than its own 8 values put it, whether the truths spread (a prior of 6
// degrees of freedom) or are all alike.
TEST(VariancePrior, ModeratedVariancesLieNearerTheTruth) {
  for (double d0 : {6.0, 0.0}) {
    double raw_error = 0, moderated_error = 0;
    for (int seed = 0; seed < 100; ++seed) {
      std::mt19937_64 engine(seed);
      const Drawn drawn = drawn_variances(engine, 150, 8, d0, 4e-4);
      const std::vector<double> df(drawn.sample.size(), 7);
      const VariancePrior prior = fit_variance_prior(drawn.sample, df);
      for (std::size_t i = 0; i < drawn.truth.size(); ++i) {
        raw_error += std::pow(std::log(drawn.sample[i] / drawn.truth[i]), 2);
        moderated_error +=
            std::pow(std::log(moderate(prior, drawn.sample[i], 7).variance / drawn.truth[i]), 2);
      }
    }
    EXPECT_LT(moderated_error, 0.6 * raw_error) << "prior df " << d0;
  }
}

TEST(VariancePrior, ModerationPullsTowardThePrior) {
  const VariancePrior prior{1e-4, 4};
  const ModeratedVariance quiet = moderate(prior, 0, 3);
  EXPECT_DOUBLE_EQ(quiet.variance, 4e-4 / 7);
  EXPECT_DOUBLE_EQ(quiet.df, 7);
  EXPECT_DOUBLE_EQ(moderate({1e-4, INFINITY}, 9e-4, 3).variance, 1e-4);
  EXPECT_EQ(fit_variance_prior(std::vector<double>{1e-4}, std::vector<double>{3}).df, 0);
}

TEST(BenjaminiHochberg, TheStepUpRule) {
  // m = 6, q = 0.05: bounds 0.0083, 0.0167, 0.025, 0.0333, 0.0417, 0.05; the 4th smallest
  // (0.03) is within its bound, so the four smallest are rejected though the 3rd (0.028) is
  // above its own.
  const std::vector<double> p{0.03, 0.001, 0.2, 0.028, 0.012, 0.9};
  EXPECT_EQ(benjamini_hochberg(p, 0.05), (std::vector<bool>{true, true, false, true, true, false}));
  EXPECT_EQ(benjamini_hochberg(std::vector<double>{0.04, 0.5}, 0.05),
            (std::vector<bool>{false, false}));
}

}  // namespace
}  // namespace collbench
