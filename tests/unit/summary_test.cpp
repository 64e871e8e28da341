#include "harness/stats/summary.h"

#include <gtest/gtest.h>

#include <random>

#include <cmath>
#include <cstddef>
#include <numeric>
#include <utility>
#include <vector>

namespace collbench {
namespace {

// 1, 2, ..., n: the value at 1-based rank i is i, so an interval reads as its ranks.
std::vector<double> ranks_up_to(std::size_t n) {
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), 1.0);
  return values;
}

// P(Binomial(n, 1/2) < l) by the plain forward recurrence in long double: an oracle independent
// of the lgamma-based code, exact enough while 2^-n does not underflow a long double.
long double binomial_half_cdf_below_reference(std::size_t n, std::size_t l) {
  long double term = std::pow(0.5L, static_cast<long double>(n));
  long double sum = 0;
  for (std::size_t k = 0; k < l; ++k) {
    sum += term;
    term = term * static_cast<long double>(n - k) / static_cast<long double>(k + 1);
  }
  return sum;
}

TEST(PercentileOfSorted, InterpolatesBetweenClosestRanksLikeNumpy) {
  const std::vector<double> sorted{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 5), 1.15);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 95), 3.85);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 99), 3.97);
}

TEST(PercentileOfSorted, EndsAreMinAndMax) {
  const std::vector<double> sorted{0.3, 0.9, 1.7, 2.2, 4.4, 5.0, 9.1};
  EXPECT_EQ(percentile_of_sorted(sorted, 0), 0.3);
  EXPECT_EQ(percentile_of_sorted(sorted, 100), 9.1);
}

// Expected values printed by numpy.percentile(sorted, q).
TEST(PercentileOfSorted, MatchesNumpyOnUnevenValues) {
  const std::vector<double> sorted{0.3, 0.9, 1.7, 2.2, 4.4, 5.0, 9.1};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 5), 0.48000000000000004);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 33.3), 1.6983999999999997);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 50), 2.2);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 95), 7.8699999999999966);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 99), 8.853999999999997);
}

TEST(PercentileOfSorted, OneElementIsEveryPercentile) {
  const std::vector<double> sorted{7.5};
  EXPECT_EQ(percentile_of_sorted(sorted, 0), 7.5);
  EXPECT_EQ(percentile_of_sorted(sorted, 5), 7.5);
  EXPECT_EQ(percentile_of_sorted(sorted, 50), 7.5);
  EXPECT_EQ(percentile_of_sorted(sorted, 100), 7.5);
}

// P(B(10) < 2) = 11/1024 = 0.0107 <= 0.025 < P(B(10) < 3) = 56/1024 = 0.0547.
// Over odd and even counts, ties and heavy tails: bit for bit the median summarize gives, and
// the p99 (any percentile likewise).
TEST(MedianBySelection, IsSummarizesMedian) {
  std::mt19937 engine(7);
  std::lognormal_distribution<double> heavy(0, 2);
  std::uniform_int_distribution<int> few_values(0, 3);
  for (std::size_t n : {1, 2, 3, 4, 5, 10, 11, 100, 101, 1000, 1001}) {
    for (int draw = 0; draw < 20; ++draw) {
      std::vector<double> values(n);
      for (double& v : values) v = draw % 2 ? heavy(engine) : few_values(engine);
      const Summary expected = summarize(values);
      EXPECT_EQ(median_by_selection(values), expected.median) << n << " values, draw " << draw;
      EXPECT_EQ(percentile_by_selection(values, 99), expected.p99) << n << " values, " << draw;
    }
  }
  EXPECT_EQ(median_by_selection(std::span<double>{}), 0);
}

TEST(MedianIntervalOfSorted, TenSamplesGiveSecondAndNinth) {
  const MedianInterval interval = median_interval_of_sorted(ranks_up_to(10));
  EXPECT_TRUE(interval.covers);
  EXPECT_EQ(interval.low, 2);
  EXPECT_EQ(interval.high, 9);
}

// P(B(6) < 1) = 1/64 = 0.0156: six samples are the fewest whose range covers the median at 95%.
TEST(MedianIntervalOfSorted, SixSamplesCoverWithTheirRange) {
  const MedianInterval interval = median_interval_of_sorted(ranks_up_to(6));
  EXPECT_TRUE(interval.covers);
  EXPECT_EQ(interval.low, 1);
  EXPECT_EQ(interval.high, 6);
}

// P(B(5) < 1) = 1/32 = 0.031 > 0.025: even the whole range is short of 95%.
TEST(MedianIntervalOfSorted, FiveSamplesDoNotCover) {
  const MedianInterval interval = median_interval_of_sorted(ranks_up_to(5));
  EXPECT_FALSE(interval.covers);
  EXPECT_EQ(interval.low, 1);
  EXPECT_EQ(interval.high, 5);
}

TEST(MedianIntervalOfSorted, OneSampleDoesNotCover) {
  const MedianInterval interval = median_interval_of_sorted(ranks_up_to(1));
  EXPECT_FALSE(interval.covers);
  EXPECT_EQ(interval.low, 1);
  EXPECT_EQ(interval.high, 1);
}

// scipy.stats.binom.cdf(39, 100, 0.5) = 0.0176 <= 0.025 < binom.cdf(40, 100, 0.5) = 0.0284.
TEST(MedianIntervalOfSorted, HundredSamplesGiveFortiethAndSixtyFirst) {
  const MedianInterval interval = median_interval_of_sorted(ranks_up_to(100));
  EXPECT_TRUE(interval.covers);
  EXPECT_EQ(interval.low, 40);
  EXPECT_EQ(interval.high, 61);
}

// Ranks from exact integer arithmetic (sum of C(n, k) against 2^n / 40) in Python; 2^-n
// underflows a double long before these sizes.
TEST(MedianIntervalOfSorted, LargeSamplesMatchExactBinomialRanks) {
  const std::vector<std::pair<std::size_t, std::size_t>> size_and_rank{
      {1000, 469}, {10000, 4902}, {100000, 49690}, {123457, 61384}, {1000000, 499020}};
  for (const auto& [n, rank] : size_and_rank) {
    const MedianInterval interval = median_interval_of_sorted(ranks_up_to(n));
    EXPECT_TRUE(interval.covers) << "n = " << n;
    EXPECT_EQ(interval.low, static_cast<double>(rank)) << "n = " << n;
    EXPECT_EQ(interval.high, static_cast<double>(n + 1 - rank)) << "n = " << n;
  }
}

TEST(MedianIntervalOfSorted, RankIsLargestWithTailAtMostTwoAndAHalfPercent) {
  for (std::size_t n = 6; n <= 2000; ++n) {
    const auto rank = static_cast<std::size_t>(median_interval_of_sorted(ranks_up_to(n)).low);
    EXPECT_LE(binomial_half_cdf_below_reference(n, rank), 0.025L) << "n = " << n;
    EXPECT_GT(binomial_half_cdf_below_reference(n, rank + 1), 0.025L) << "n = " << n;
  }
}

// Remembered per count: asked in any order, asked again, the same exact ranks.
TEST(MedianIntervalRank, SameRanksInAnyOrder) {
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(median_interval_rank(10000), 4902u);
    EXPECT_EQ(median_interval_rank(100), 40u);
    EXPECT_EQ(median_interval_rank(1000), 469u);
    EXPECT_EQ(median_interval_rank(10), 2u);
    EXPECT_EQ(median_interval_rank(5), 0u);
    EXPECT_EQ(median_interval_rank(0), 0u);
  }
}

TEST(Summarize, OrderStatisticsOfUnsortedInput) {
  const std::vector<double> values{4, 1, 3, 2};
  const Summary summary = summarize(values);
  EXPECT_EQ(summary.samples, 4u);
  EXPECT_DOUBLE_EQ(summary.median, 2.5);
  EXPECT_EQ(summary.min, 1);
  EXPECT_DOUBLE_EQ(summary.p5, 1.15);
  EXPECT_DOUBLE_EQ(summary.p95, 3.85);
  EXPECT_DOUBLE_EQ(summary.p99, 3.97);
  EXPECT_EQ(summary.max, 4);
}

TEST(Summarize, MedianOfOddCountIsMiddleValue) {
  const std::vector<double> values{5, 9, 1, 7, 3};
  EXPECT_EQ(summarize(values).median, 5);
}

// numpy.std([2, 4, 4, 4, 5, 5, 7, 9], ddof=1) = 2.138089935299395.
TEST(Summarize, MeanAndSampleStandardDeviation) {
  const std::vector<double> values{2, 4, 4, 4, 5, 5, 7, 9};
  const Summary summary = summarize(values);
  EXPECT_DOUBLE_EQ(summary.mean, 5);
  EXPECT_DOUBLE_EQ(summary.stddev, 2.138089935299395);
}

TEST(Summarize, OneSampleHasZeroSpreadAndUncoveringInterval) {
  const std::vector<double> values{3.25};
  const Summary summary = summarize(values);
  EXPECT_EQ(summary.samples, 1u);
  EXPECT_EQ(summary.median, 3.25);
  EXPECT_EQ(summary.min, 3.25);
  EXPECT_EQ(summary.max, 3.25);
  EXPECT_EQ(summary.mean, 3.25);
  EXPECT_EQ(summary.stddev, 0);
  EXPECT_EQ(summary.ci_low, 3.25);
  EXPECT_EQ(summary.ci_high, 3.25);
}

TEST(Summarize, IntervalOfTenUnsortedSamples) {
  const std::vector<double> values{10, 3, 7, 1, 9, 2, 8, 5, 6, 4};
  const Summary summary = summarize(values);
  EXPECT_EQ(summary.ci_low, 2);
  EXPECT_EQ(summary.ci_high, 9);
}

TEST(Summarize, LeavesInputUntouched) {
  const std::vector<double> original{3, 1, 2, 5, 4};
  std::vector<double> values = original;
  summarize(values);
  EXPECT_EQ(values, original);
}

TEST(Summarize, EmptyInputIsAllZeros) {
  const Summary summary = summarize({});
  EXPECT_EQ(summary.samples, 0u);
  EXPECT_EQ(summary.median, 0);
  EXPECT_EQ(summary.min, 0);
  EXPECT_EQ(summary.p5, 0);
  EXPECT_EQ(summary.p95, 0);
  EXPECT_EQ(summary.p99, 0);
  EXPECT_EQ(summary.max, 0);
  EXPECT_EQ(summary.mean, 0);
  EXPECT_EQ(summary.stddev, 0);
  EXPECT_EQ(summary.ci_low, 0);
  EXPECT_EQ(summary.ci_high, 0);
}

}  // namespace
}  // namespace collbench
