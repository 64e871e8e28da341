#include "harness/stats/sorted_samples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace collbench {
namespace {

// Every order statistic after every sample equals the sorted stream's, across merges of the
// recent run (the stream passes 32, then sqrt(2n), many times).
TEST(SortedSamples, EveryOrderStatisticMatchesTheSortedStreamAfterEverySample) {
  std::mt19937_64 engine(7);
  SortedSamples samples;
  std::vector<double> reference;
  for (int i = 0; i < 3000; ++i) {
    const double value = static_cast<double>(engine() % 1000) / 7.0;  // many ties
    samples.add(value);
    reference.insert(std::upper_bound(reference.begin(), reference.end(), value), value);
    ASSERT_EQ(samples.size(), reference.size());
    const std::size_t n = reference.size();
    for (std::size_t k : {std::size_t{0}, n / 3, (n - 1) / 2, n / 2, n - 1})
      ASSERT_EQ(samples.at(k), reference[k]) << "n " << n << " k " << k;
  }
  for (std::size_t k = 0; k < reference.size(); ++k) ASSERT_EQ(samples.at(k), reference[k]) << k;
}

TEST(SortedSamples, AscendingAndDescendingStreams) {
  SortedSamples ascending, descending;
  for (int i = 0; i < 500; ++i) {
    ascending.add(i);
    descending.add(499 - i);
  }
  for (std::size_t k = 0; k < 500; ++k) {
    EXPECT_EQ(ascending.at(k), static_cast<double>(k));
    EXPECT_EQ(descending.at(k), static_cast<double>(k));
  }
}

TEST(SortedSamples, ClearForgetsEverySample) {
  SortedSamples samples;
  for (int i = 0; i < 100; ++i) samples.add(100 - i);
  samples.clear();
  EXPECT_EQ(samples.size(), 0u);
  samples.add(3);
  samples.add(1);
  EXPECT_EQ(samples.at(0), 1);
  EXPECT_EQ(samples.at(1), 3);
}

}  // namespace
}  // namespace collbench
