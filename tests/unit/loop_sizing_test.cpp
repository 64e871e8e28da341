#include "harness/measure/loop_sizing.h"

#include <gtest/gtest.h>

#include <vector>

namespace collbench {
namespace {

TEST(LoopSizing, TheMedianOperationFillsTheTarget) {
  const LoopSizing sizing;  // 1 ms, 10 to 1000 operations
  EXPECT_EQ(ops_for(std::vector<double>{20e-6, 21e-6, 19e-6, 20e-6, 22e-6}, sizing), 50);
}

TEST(LoopSizing, OneDelayedOperationDoesNotShrinkTheLoop) {
  const LoopSizing sizing;
  // One probe of five hit a 5 ms hiccup: the loop stays sized by the other four.
  EXPECT_EQ(ops_for(std::vector<double>{20e-6, 5e-3, 20e-6, 21e-6, 19e-6}, sizing), 50);
}

TEST(LoopSizing, NeverFewerThanTenNorMoreThanTheCap) {
  const LoopSizing sizing;
  EXPECT_EQ(ops_for(std::vector<double>{2e-3, 2e-3, 2e-3}, sizing), 10);
  EXPECT_EQ(ops_for(std::vector<double>{1e-8, 1e-8, 1e-8}, sizing), 1000);
  EXPECT_EQ(ops_for(std::vector<double>{}, sizing), 1000);
}

TEST(LoopSizing, SamplesFarFromTheTargetResizeTheLoop) {
  const LoopSizing sizing;
  // Sized at 50 from 20 us probes, but each operation takes 200 us: loops of 10 ms.
  const std::vector<double> slow(5, 200e-6);
  EXPECT_EQ(resized_loop(slow, 50, sizing), std::optional<int>(10));
  // Within the tolerance nothing changes.
  const std::vector<double> close(5, 40e-6);
  EXPECT_EQ(resized_loop(close, 50, sizing), std::nullopt);
  // Far off, but already at the cap: nothing better to do.
  const std::vector<double> tiny(5, 1e-8);
  EXPECT_EQ(resized_loop(tiny, 1000, sizing), std::nullopt);
}

}  // namespace
}  // namespace collbench
