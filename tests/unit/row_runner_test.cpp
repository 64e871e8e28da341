// RowRunner in-process, on one rank of a fake library whose clock moves only by the time each
// launch is scripted to take (one_rank_library.h): the samples, the bandwidth loop's length, the stopping rule's
// decisions, validation before and after timing, and a library fault, in milliseconds.
#include <gtest/gtest.h>

#include <vector>

#include "harness/measure/row_runner.h"
#include "one_rank_library.h"

namespace collbench {
namespace {

constexpr std::size_t kRowBytes = 1024;
// Launches before a bandwidth point's loop: the communicator's first call (constructor), the
// check before timing (-c 1), the warm-up (-w 1) and LoopSizing's 5 single-operation probes.
constexpr int kLaunchesBeforeTheLoop = 1 + 1 + 1 + 5;

class RowRunnerTest : public ::testing::Test {
 protected:
  RowRunnerTest() {
    settings_.backend = "fake";
    settings_.modes = {Mode::latency};
    settings_.in_place = {false};
    settings_.warmup = 1;
    settings_.check_iters = 1;
    settings_.latency_start = SampleStart::barrier;  // timed by the library's timer
    settings_.stopping.fixed_samples = 7;
  }

  std::vector<PointResult> measure(std::optional<double> time_left_s = std::nullopt) {
    const GroupRun run{&library_, &library_, 1, {0}};
    RunBuffers buffers{library_.allocate(kRowBytes), library_.allocate(kRowBytes)};
    RowRunner runner(run, settings_, buffers, CollectiveKind::allreduce);
    const PlannedRow row{CollectiveKind::allreduce, DataType::float32, ReduceOp::sum,
                         shape_for(CollectiveKind::allreduce, kRowBytes, sizeof(float), 1)};
    return runner.measure(row, time_left_s, {}, /*last_round=*/true);
  }

  OneRankLibrary library_;
  MeasureSettings settings_;
};

TEST_F(RowRunnerTest, AFixedCountTakesThatManySamplesEachAsLongAsTheClockSays) {
  library_.op_seconds = [](int) { return 3e-6; };
  const auto points = measure();
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].stop_reason, StopReason::fixed_count);
  EXPECT_EQ(points[0].ops_per_sample, 1);
  ASSERT_EQ(points[0].slowest.seconds.size(), 7u);
  for (double sample : points[0].slowest.seconds) EXPECT_NEAR(sample, 3e-6, 1e-12);
  EXPECT_EQ(points[0].checks.before_timing, 0);
  EXPECT_EQ(points[0].checks.after_timing, 0);
}

TEST_F(RowRunnerTest, ABandwidthLoopLastsTheTargetAndEachSampleIsPerOperation) {
  settings_.modes = {Mode::bandwidth};
  library_.op_seconds = [](int) { return 7e-6; };
  const auto points = measure();
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].ops_per_sample, 143);  // 1 ms of 7 us operations, rounded up
  for (double sample : points[0].slowest.seconds) EXPECT_NEAR(sample, 7e-6, 1e-12);
}

TEST_F(RowRunnerTest, GraphLaunchesRepeatABandwidthBatchAndALatencySampleIsOneOperation) {
  settings_.modes = {Mode::bandwidth, Mode::latency};
  settings_.launches_per_bandwidth_sample = 3;  // -G 3
  library_.op_seconds = [](int) { return 7e-6; };
  const auto points = measure();
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].ops_per_sample, 3 * 143);  // the 1 ms batch, launched three times
  for (double sample : points[0].slowest.seconds) EXPECT_NEAR(sample, 7e-6, 1e-12);
  EXPECT_EQ(points[1].ops_per_sample, 1);
  for (double sample : points[1].slowest.seconds) EXPECT_NEAR(sample, 7e-6, 1e-12);
  // The latency point's warm-up and 7 samples, and the check after timing.
  EXPECT_EQ(library_.launches, kLaunchesBeforeTheLoop + 7 * 3 * 143 + 1 + 7 + 1);
}

TEST_F(RowRunnerTest, ALoopSizedBeforeTheHostSpedUpIsResizedAndItsSamplesRedone) {
  settings_.modes = {Mode::bandwidth};
  // The probes see 10 us operations, the loop then 1 us ones: 100 operations last a tenth of
  // the 1 ms target, more than LoopSizing's tolerance of 4 off.
  library_.op_seconds = [](int launch) { return launch < kLaunchesBeforeTheLoop ? 10e-6 : 1e-6; };
  const auto points = measure();
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].ops_per_sample, 1000);
  ASSERT_EQ(points[0].slowest.seconds.size(), 7u);  // none of the mis-sized loop's kept
  for (double sample : points[0].slowest.seconds) EXPECT_NEAR(sample, 1e-6, 1e-12);
}

TEST_F(RowRunnerTest, AdaptiveStoppingEndsOnceSamplesThatAgreeReachTheMinimum) {
  settings_.stopping = StoppingRule{};
  settings_.stopping.min_samples = 10;
  settings_.stopping.target_ci = 0.01;
  library_.op_seconds = [](int) { return 2e-6; };
  const auto points = measure();
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].stop_reason, StopReason::converged);
  EXPECT_EQ(points[0].slowest.seconds.size(), 10u);
}

TEST_F(RowRunnerTest, NoTimeLeftEndsTheRowAtItsFirstPoint) {
  settings_.modes = {Mode::latency, Mode::bandwidth};
  const auto points = measure(0.0);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].stop_reason, StopReason::time_limit);
}

TEST_F(RowRunnerTest, ValidationCountsWhatALibraryLeftUnwrittenBeforeAndAfterTiming) {
  const std::size_t elements = kRowBytes / sizeof(float);
  library_.writes = [](int) { return false; };
  const auto dropped = measure();
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].checks.before_timing, static_cast<std::int64_t>(elements));
  EXPECT_EQ(dropped[0].checks.after_timing, static_cast<std::int64_t>(elements));

  // A library that stops writing after the check before timing (launch 1, after the
  // communicator's first): only the check after timing sees it.
  library_.launches = 0;
  library_.writes = [](int launch) { return launch < 2; };
  const auto stopped = measure();
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0].checks.before_timing, 0);
  EXPECT_EQ(stopped[0].checks.after_timing, static_cast<std::int64_t>(elements));
}

TEST_F(RowRunnerTest, ALibraryFaultWhileSamplingEndsTheRowWithIt) {
  library_.fails = [](int launch) { return launch == 5; };
  EXPECT_THROW(measure(), CommunicationFault);
}

}  // namespace
}  // namespace collbench
