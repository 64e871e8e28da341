// The passes in-process, on the one-rank library of one_rank_library.h: each curve's rows are
// measured round after round, every point's rounds apart by the rest of its curve and pooled
// into one point; --time-limit ends the sweep with the rows begun kept, and says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "harness/measure/sweep_passes.h"
#include "one_rank_library.h"

namespace collbench {
namespace {

constexpr int kRounds = 3;
constexpr std::size_t kSamplesPerRound = 4;
const std::vector<std::size_t> kSizes = {64, 512, 4096};

class SweepPassesTest : public ::testing::Test {
 protected:
  SweepPassesTest() {
    config_.backend = "fake";
    config_.sizes = kSizes;
    config_.collectives = {CollectiveKind::allreduce};
    config_.datatypes = {DataType::float32};
    config_.reduce_ops = {ReduceOp::sum};
    config_.modes = {Mode::latency};
    config_.in_place = {false};
    config_.placements = {Placement::world};
    config_.latency_start = SampleStart::barrier;
    config_.keep_samples = KeepSamples::all;
    config_.sampling.warmup = 1;
    config_.sampling.rounds = kRounds;
    config_.sampling.stopping.fixed_samples = kSamplesPerRound;
  }

  // The rows done, in the order row_done got them; the passes' notes.
  std::vector<std::vector<PointResult>> run(const TimeLeft& time_left = [] {
    return std::optional<double>();
  }) {
    std::vector<std::string> notes;
    const auto passes = plan_passes(config_, backend_, {RankPlace{}}, notes);
    EXPECT_EQ(passes.size(), 1u);
    const BufferSizes sizes = buffers_for(passes.at(0).plan);
    RunBuffers buffers{backend_.library.allocate(sizes.send_bytes),
                       backend_.library.allocate(sizes.recv_bytes)};
    std::vector<std::vector<PointResult>> rows;
    run_passes(backend_, passes, config_, LoadSite{}, 0, PlausibilityBound{}, buffers, time_left,
               [&](const std::vector<PointResult>& points, const PlannedRow&) {
                 rows.push_back(points);
               },
               [&](std::size_t curve_rows) { curves_.push_back(curve_rows); }, notes_);
    return rows;
  }

  OneRankBackend backend_;
  RunConfig config_;
  std::vector<std::size_t> curves_;
  std::vector<std::string> notes_;
};

TEST_F(SweepPassesTest, EveryPointPoolsItsRoundsEachApartByTheRestOfItsCurve) {
  const auto rows = run();
  ASSERT_EQ(rows.size(), kSizes.size());
  EXPECT_EQ(curves_, std::vector<std::size_t>{kSizes.size()});
  std::vector<std::size_t> done;
  for (const auto& points : rows) {
    ASSERT_EQ(points.size(), 1u);
    const PointResult& point = points[0];
    done.push_back(point.key.size_bytes);
    EXPECT_EQ(point.samples.round_starts,
              (std::vector<std::size_t>{0, kSamplesPerRound, 2 * kSamplesPerRound}));
    EXPECT_EQ(point.summary.samples, kRounds * kSamplesPerRound);
    EXPECT_NEAR(point.summary.median, 1e-6, 1e-12);
  }
  std::sort(done.begin(), done.end());
  EXPECT_EQ(done, kSizes);
}

TEST_F(SweepPassesTest, EachRoundVisitsEveryRowOnceAndNoRowTwiceInARow) {
  // The row of each round measured, by its size: a run of launches of one size is one visit
  // (the communicator's first call, of one float, is no row's).
  std::vector<std::size_t> order;
  backend_.library.on_launch = [&order](const CollectiveCall& call) {
    const std::size_t size = call.shape.size_bytes;
    if (std::ranges::find(kSizes, size) == kSizes.end()) return;
    if (order.empty() || order.back() != size) order.push_back(size);
  };
  run();
  ASSERT_EQ(order.size(), kSizes.size() * kRounds);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::size_t> visited(order.begin() + round * kSizes.size(),
                                     order.begin() + (round + 1) * kSizes.size());
    std::sort(visited.begin(), visited.end());
    EXPECT_EQ(visited, kSizes) << "round " << round;
  }
}

TEST_F(SweepPassesTest, TheTimeLimitEndsTheSweepKeepingTheRowsBegunAndSaysSo) {
  config_.time_limit_s = 1;
  int asked = 0;
  // Time for the first round's three rows and one row of the second.
  const auto rows = run([&asked]() -> std::optional<double> { return ++asked <= 4 ? 1.0 : 0.0; });
  ASSERT_EQ(rows.size(), kSizes.size());  // every row begun is kept, with the rounds it has
  std::map<std::size_t, std::size_t> rounds;
  for (const auto& points : rows)
    rounds[points.at(0).key.size_bytes] = points.at(0).samples.round_starts.size();
  std::vector<std::size_t> counts;
  for (const auto& [size, count] : rounds) counts.push_back(count);
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<std::size_t>{1, 1, 2}));
  EXPECT_TRUE(curves_.empty());  // the curve did not finish
  ASSERT_FALSE(notes_.empty());
  EXPECT_EQ(notes_.back(), "--time-limit of 1 s reached; the sweep stopped early");
}

}  // namespace
}  // namespace collbench
