// RowRunner in-process, on one rank of a fake library whose clock moves only by the time each
// launch is scripted to take: the samples, the bandwidth loop's length, the stopping rule's
// decisions, validation before and after timing, and a library fault, in milliseconds.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include "backends/communicator.h"
#include "harness/measure/row_runner.h"

namespace collbench {
namespace {

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes) : bytes_(bytes) {}
  std::byte* data() override { return bytes_.data(); }
  std::size_t bytes() const override { return bytes_.size(); }
  void upload(std::span<const std::byte> host, std::size_t offset) override {
    std::memcpy(bytes_.data() + offset, host.data(), host.size());
  }
  void download(std::span<std::byte> host, std::size_t offset) const override {
    std::memcpy(host.data(), bytes_.data() + offset, host.size());
  }
  std::span<std::byte> host_bytes() override { return bytes_; }
  std::span<const std::byte> host_bytes() const override { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// One rank alone: its collectives copy the input to the output, as every collective over one
// rank does, and take the scripted time on the fake's clock, which nothing else moves.
class OneRankLibrary final : public Communicator {
 public:
  // The seconds launch number `launch` (from 0, over the library's life) takes.
  std::function<double(int launch)> op_seconds = [](int) { return 1e-6; };
  // Whether launch `launch` writes its output (a library that drops writes does not).
  std::function<bool(int launch)> writes = [](int) { return true; };
  // Whether launch `launch` fails, as a library's asynchronous error surfaces.
  std::function<bool(int launch)> fails = [](int) { return false; };
  double clock_s = 0;
  int launches = 0;

  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override {
    return std::make_unique<HostBuffer>(bytes);
  }
  std::unique_ptr<Timer> make_timer() override { return std::make_unique<ClockTimer>(*this); }
  void launch(const CollectiveCall& call, Buffer& send, Buffer& recv) override {
    const int launch = launches++;
    if (fails(launch)) throw CommunicationFault("the library failed mid-collective");
    if (writes(launch) && !call.in_place)
      std::memcpy(recv.data(), send.data(), call.shape.send_count * size_of(call.datatype));
    clock_s += op_seconds(launch);
  }
  void barrier() override {}
  std::unique_ptr<Communicator> split(int, int) override { return nullptr; }
  std::unique_ptr<Communicator> split_node() override { return nullptr; }

 protected:
  void broadcast_bytes(std::span<std::byte>, int) override {}
  void gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all, int) override {
    std::memcpy(all.data(), mine.data(), mine.size());
  }
  void sum_int64(std::span<std::int64_t>) override {}
  void max_double(std::span<double>) override {}
  void send_bytes(std::span<const std::byte>, int) override {
    throw std::logic_error("one rank has no peer");
  }
  void receive_bytes(std::span<std::byte>, int) override {
    throw std::logic_error("one rank has no peer");
  }

 private:
  class ClockTimer final : public Timer {
   public:
    explicit ClockTimer(const OneRankLibrary& library) : library_(library) {}
    void start() override { started_s_ = library_.clock_s; }
    double stop_seconds() override { return library_.clock_s - started_s_; }

   private:
    const OneRankLibrary& library_;
    double started_s_ = 0;
  };
};

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
