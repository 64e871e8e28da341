#include "harness/stats/change_points.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace collbench {
namespace {

// Nightly medians around `level` with log-spread `sigma` (Box-Muller on mt19937_64: the same
// series with every standard library); from `step_at` on, times `step`.
std::vector<double> nights(std::size_t n, double sigma, std::uint64_t seed, std::size_t step_at = 0,
                           double step = 1) {
  std::mt19937_64 engine(seed);
  const auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) / 9007199254740992.0; };
  std::vector<double> series;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform());
    series.push_back(10e-6 * (step_at && i >= step_at ? step : 1) * std::exp(sigma * z));
  }
  return series;
}

TEST(ChangePoints, APlantedTenPercentStepIsFoundWhereItWasPlanted) {
  for (const std::size_t n : {6, 8, 12}) {
    int found = 0, placed = 0;
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
      const auto changes = change_points(nights(n, 0.02, seed, n / 2, 1.10));
      found += !changes.empty();
      placed += changes.size() == 1 && changes[0].index == n / 2 && changes[0].after > changes[0].before;
    }
    std::printf("%zu nights, 2%% noise, a 10%% step halfway: found %d/100, alone and in place %d/100\n",
                n, found, placed);
    // Six nights leave a 3/3 split four degrees of freedom and four candidates: less power.
    EXPECT_GE(placed, n == 6 ? 80 : 90) << n << " nights";
  }
}

TEST(ChangePoints, AFlatNoisySeriesHasNone) {
  for (const double sigma : {0.02, 0.05}) {
    for (const std::size_t n : {6, 12, 30}) {
      int quiet = 0;
      for (std::uint64_t seed = 0; seed < 100; ++seed)
        quiet += change_points(nights(n, sigma, 1000 + seed)).empty();
      std::printf("%zu flat nights, %.0f%% noise: no change point in %d/100\n", n, 100 * sigma, quiet);
      EXPECT_GE(quiet, 95) << n << " nights, sigma " << sigma;
    }
  }
}

TEST(ChangePoints, TwoStepsBothFoundWithTheirLevels) {
  std::vector<double> series;
  for (double level : {1.0, 1.0, 1.0, 1.0, 1.2, 1.2, 1.2, 1.2, 1.0, 1.0, 1.0, 1.0})
    series.push_back(level * 1e-6 * (1 + 0.001 * (series.size() % 3)));
  const auto changes = change_points(series);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 4u);
  EXPECT_EQ(changes[1].index, 8u);
  EXPECT_NEAR(changes[0].after / changes[0].before, 1.2, 0.01);
  EXPECT_NEAR(changes[1].after / changes[1].before, 1 / 1.2, 0.01);
  EXPECT_LE(changes[0].p_value, 0.05);
}

TEST(ChangePoints, SmallOrLoneChangesAreNotLevels) {
  // 3% is below the 5% minimum magnitude however clean
  EXPECT_TRUE(change_points(std::vector{1.0, 1.0, 1.0, 1.03, 1.03, 1.03}).empty());
  // one outlier night at the end is not a new level
  EXPECT_TRUE(change_points(std::vector{1.0, 1.01, 0.99, 1.0, 1.01, 1.5}).empty());
  EXPECT_TRUE(change_points(std::vector{1.0, 1.0, 1.0, 1.0}).empty());
  EXPECT_TRUE(change_points(std::vector{1.0, 2.0, 1.0}).empty());
  ChangePointOptions lower;
  lower.min_magnitude = 0.02;
  EXPECT_EQ(change_points(std::vector{1.0, 1.0, 1.0, 1.03, 1.03, 1.03}, lower).size(), 1u);
}

}  // namespace
}  // namespace collbench
