#include "harness/stats/resampled_median.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <random>
#include <vector>

#include "harness/stats/uniform_index.h"

namespace collbench {
namespace {

using Distribution = std::map<double, double>;  // median -> probability

double median_of_draws(const std::vector<double>& sorted, std::vector<std::size_t> indexes) {
  std::ranges::sort(indexes);
  const std::size_t m = indexes.size();
  return (sorted[indexes[(m - 1) / 2]] + sorted[indexes[m / 2]]) / 2;
}

// The median of every resample of `draws` indexes into `sorted`, each resample once: the
// bootstrap's distribution, exactly.
Distribution every_resample(const std::vector<double>& sorted, std::size_t draws) {
  Distribution exact;
  std::vector<std::size_t> indexes(draws, 0);
  const double weight = std::pow(static_cast<double>(sorted.size()), -static_cast<double>(draws));
  for (;;) {
    exact[median_of_draws(sorted, indexes)] += weight;
    std::size_t digit = 0;
    while (digit < draws && ++indexes[digit] == sorted.size()) indexes[digit++] = 0;
    if (digit == draws) return exact;
  }
}

template <typename Draw>
Distribution observed(Draw draw, int count) {
  Distribution seen;
  for (int i = 0; i < count; ++i) seen[draw()] += 1.0 / count;
  return seen;
}

// The largest gap between the two cumulative distributions.
double cdf_gap(const Distribution& a, const Distribution& b) {
  std::map<double, double> steps;
  for (const auto& [value, p] : a) steps[value] += p;
  for (const auto& [value, p] : b) steps[value] -= p;
  double gap = 0, running = 0;
  for (const auto& [value, step] : steps) gap = std::max(gap, std::abs(running += step));
  return gap;
}

constexpr int kDraws = 200000;
// A cumulative probability estimated from 200,000 draws has a standard error of 0.0011 at most;
// 0.005 is 4.5 of them.
constexpr double kGapBound = 0.005;

// Seven values (odd: one middle) and six (even: the mean of two, each pair its own sum).
const std::vector<std::vector<double>> kCurves{{0, 1, 2, 3, 4, 5, 6}, {1, 2, 4, 8, 16, 32}};

TEST(ResampledMedian, DrawsTheBootstrapsExactDistribution) {
  std::mt19937_64 engine(7);
  for (const auto& sorted : kCurves) {
    const Distribution exact = every_resample(sorted, sorted.size());
    const Distribution drawn =
        observed([&] { return resampled_median(sorted, engine); }, kDraws);
    EXPECT_LT(cdf_gap(exact, drawn), kGapBound) << sorted.size() << " values";
  }
}

// The negative control: a resample one draw short, the slip the order statistics' shapes
// invite, drawn the plain way, is told apart by the same check.
TEST(ResampledMedian, TheCheckTellsAResampleOneDrawShort) {
  std::mt19937_64 engine(8);
  for (const auto& sorted : kCurves) {
    const Distribution exact = every_resample(sorted, sorted.size());
    const Distribution short_one = observed([&] {
      std::vector<std::size_t> indexes(sorted.size() - 1);
      for (auto& index : indexes) index = uniform_index(engine, sorted.size());
      return median_of_draws(sorted, indexes);
    }, kDraws);
    EXPECT_GT(cdf_gap(exact, short_one), kGapBound) << sorted.size() << " values";
  }
}

// Beyond what can be enumerated: against resamples drawn one index at a time, two samples of
// 20,000 (Kolmogorov and Smirnov's two-sample bound at 0.001: 1.95·sqrt(2/20,000) = 0.0195).
TEST(ResampledMedian, AgreesWithResamplingIndexByIndexAtAThousandValues) {
  std::vector<double> sorted(1001);
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = std::exp(i / 100.0);
  std::mt19937_64 engine(9);
  const Distribution drawn = observed([&] { return resampled_median(sorted, engine); }, 20000);
  const Distribution plain = observed([&] {
    std::vector<std::size_t> indexes(sorted.size());
    for (auto& index : indexes) index = uniform_index(engine, sorted.size());
    return median_of_draws(sorted, indexes);
  }, 20000);
  EXPECT_LT(cdf_gap(drawn, plain), 0.0195);
}

TEST(ResampledMedian, OneValueIsItsOwnMedian) {
  std::mt19937_64 engine(10);
  const std::vector<double> one{3.5};
  EXPECT_EQ(resampled_median(one, engine), 3.5);
}

}  // namespace
}  // namespace collbench
