#include "harness/measure/start_window.h"

#include <gtest/gtest.h>

#include <vector>

namespace collbench {
namespace {

TEST(StartWindow, TheSampleIsTheLatestEnd) {
  // Three ranks that learnt t0 4-6 us ahead of it and ended 0.9-1.4 us after it.
  const WindowVerdict verdict = judge_window({.end_s = 1.4e-6, .learnt_after_t0_s = -4e-6});
  EXPECT_TRUE(verdict.valid);
  EXPECT_DOUBLE_EQ(verdict.time_s, 1.4e-6);
}

TEST(StartWindow, ARankThatLearntT0AfterItPassedInvalidatesTheSample) {
  EXPECT_FALSE(judge_window({.end_s = 3e-6, .learnt_after_t0_s = 2e-6}).valid);
  EXPECT_FALSE(judge_window({.end_s = 1e-6, .learnt_after_t0_s = 1e-9}).valid);
  EXPECT_TRUE(judge_window({.end_s = 1e-6, .learnt_after_t0_s = 0}).valid);
}

TEST(StartWindow, InitialMarginFollowsTheBroadcastTime) {
  const std::vector<double> delays{3e-6, 5e-6, 4e-6, 90e-6, 4e-6};  // one broadcast was slow
  EXPECT_DOUBLE_EQ(MarginController::initial(delays, 2e-6), 4 * 4e-6 + 2e-6);
  EXPECT_DOUBLE_EQ(MarginController::initial(std::vector<double>{0.1e-6}, 0),
                   MarginController::kMinimumSeconds);
  EXPECT_DOUBLE_EQ(MarginController::initial(std::vector<double>{5.0}, 0),
                   MarginController::kMaximumSeconds);
}

TEST(StartWindow, FrequentLateRanksWidenTheMarginAndRareOnesDoNot) {
  MarginController margin(10e-6);
  // One invalid sample in each stretch of kRecent is tolerated.
  for (int stretch = 0; stretch < 5; ++stretch) {
    margin.record(false);
    for (std::size_t i = 1; i < MarginController::kRecent; ++i) margin.record(true);
  }
  EXPECT_DOUBLE_EQ(margin.margin_s(), 10e-6);
  margin.record(false);
  margin.record(true);
  margin.record(false);  // the second within kRecent
  EXPECT_DOUBLE_EQ(margin.margin_s(), 20e-6);
  margin.record(false);  // the count restarts after widening
  EXPECT_DOUBLE_EQ(margin.margin_s(), 20e-6);
  for (int i = 0; i < 100; ++i) margin.record(false);
  EXPECT_DOUBLE_EQ(margin.margin_s(), MarginController::kMaximumSeconds);
}

TEST(StartWindow, ALongRunOfValidSamplesNarrowsTheMarginBackToItsStart) {
  MarginController margin(10e-6);
  margin.record(false);
  margin.record(false);
  margin.record(false);
  margin.record(false);
  EXPECT_DOUBLE_EQ(margin.margin_s(), 40e-6);
  for (std::size_t i = 1; i < MarginController::kNarrowAfter; ++i) margin.record(true);
  EXPECT_DOUBLE_EQ(margin.margin_s(), 40e-6);
  margin.record(true);
  EXPECT_DOUBLE_EQ(margin.margin_s(), 20e-6);
  margin.record(false);  // an invalid sample starts the run again
  for (std::size_t i = 1; i < MarginController::kNarrowAfter; ++i) margin.record(true);
  EXPECT_DOUBLE_EQ(margin.margin_s(), 20e-6);
  for (std::size_t i = 0; i < 10 * MarginController::kNarrowAfter; ++i) margin.record(true);
  EXPECT_DOUBLE_EQ(margin.margin_s(), 10e-6);  // never below where it started
}

}  // namespace
}  // namespace collbench
