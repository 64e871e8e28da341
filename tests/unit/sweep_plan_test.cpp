#include "harness/plan/sweep_plan.h"

#include <gtest/gtest.h>

#include "harness/plan/sizes.h"

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace collbench {
namespace {

SweepRequest request_of(std::vector<CollectiveKind> collectives, std::vector<DataType> types,
                         std::vector<ReduceOp> ops, std::vector<std::size_t> sizes) {
  return {std::move(sizes), std::move(collectives), std::move(types), std::move(ops)};
}

using RowKey = std::tuple<CollectiveKind, DataType, ReduceOp, std::size_t>;

std::vector<RowKey> keys_of(const SweepPlan& plan) {
  std::vector<RowKey> keys;
  for (const auto& row : plan.rows)
    keys.emplace_back(row.collective, row.datatype, row.op, row.shape.size_bytes);
  return keys;
}

TEST(PlanSweep, RowsRunCollectiveThenDatatypeThenOpThenSize) {
  const auto config = request_of({CollectiveKind::allreduce, CollectiveKind::reduce_scatter},
                                  {DataType::float32, DataType::int8},
                                  {ReduceOp::sum, ReduceOp::max}, {64, 128});
  const SweepPlan plan = plan_sweep(config, 2);
  const auto AR = CollectiveKind::allreduce;
  const auto RS = CollectiveKind::reduce_scatter;
  const auto F = DataType::float32;
  const auto I8 = DataType::int8;
  const auto S = ReduceOp::sum;
  const auto M = ReduceOp::max;
  const std::vector<RowKey> expected{
      {AR, F, S, 64},  {AR, F, S, 128},  {AR, F, M, 64},  {AR, F, M, 128},
      {AR, I8, S, 64}, {AR, I8, S, 128}, {AR, I8, M, 64}, {AR, I8, M, 128},
      {RS, F, S, 64},  {RS, F, S, 128},  {RS, F, M, 64},  {RS, F, M, 128},
      {RS, I8, S, 64}, {RS, I8, S, 128}, {RS, I8, M, 64}, {RS, I8, M, 128},
  };
  EXPECT_EQ(keys_of(plan), expected);
  EXPECT_TRUE(plan.notes.empty());
}

TEST(PlanSweep, RowsCarryTheShapeOfTheirCollective) {
  const auto config = request_of({CollectiveKind::allreduce, CollectiveKind::allgather,
                                   CollectiveKind::reduce_scatter},
                                  {DataType::float32}, {ReduceOp::sum}, {1024});
  const SweepPlan plan = plan_sweep(config, 4);
  ASSERT_EQ(plan.rows.size(), 3u);
  EXPECT_EQ(plan.rows[0].shape.count, 256u);
  EXPECT_EQ(plan.rows[1].shape.count, 64u);
  EXPECT_EQ(plan.rows[1].shape.recv_count, 256u);
  EXPECT_EQ(plan.rows[2].shape.count, 64u);
  EXPECT_EQ(plan.rows[2].shape.send_count, 256u);
}

TEST(PlanSweep, AllgatherGetsOneOpOnly) {
  const auto config = request_of({CollectiveKind::allgather}, {DataType::float32, DataType::int32},
                                  {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max},
                                  {64, 128, 256});
  const SweepPlan plan = plan_sweep(config, 2);
  ASSERT_EQ(plan.rows.size(), 6u);  // 2 datatypes x 3 sizes, one op
  for (const auto& row : plan.rows) EXPECT_EQ(row.collective, CollectiveKind::allgather);
  EXPECT_EQ(plan.rows[0].datatype, DataType::float32);
  EXPECT_EQ(plan.rows[3].datatype, DataType::int32);
  // Every op still runs for the collectives that reduce.
  const auto both = request_of({CollectiveKind::allgather, CollectiveKind::reduce_scatter},
                                {DataType::float32},
                                {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max},
                                {64});
  const SweepPlan plan2 = plan_sweep(both, 2);
  ASSERT_EQ(plan2.rows.size(), 5u);
  EXPECT_EQ(plan2.rows[0].collective, CollectiveKind::allgather);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(plan2.rows[i].collective, CollectiveKind::reduce_scatter);
    EXPECT_EQ(plan2.rows[i].op, all_reduce_ops()[i - 1]);
  }
}

TEST(PlanSweep, SizesTooSmallForOneElementPerRankAreSkippedWithANote) {
  // float over 4 ranks: allgather needs 16 B; 8 B is skipped, 16 B is one element each.
  const auto config =
      request_of({CollectiveKind::allgather}, {DataType::float32}, {ReduceOp::sum}, {8, 16, 32});
  const SweepPlan plan = plan_sweep(config, 4);
  ASSERT_EQ(plan.rows.size(), 2u);
  EXPECT_EQ(plan.rows[0].shape.size_bytes, 16u);
  EXPECT_EQ(plan.rows[0].shape.count, 1u);
  EXPECT_EQ(plan.rows[1].shape.size_bytes, 32u);
  ASSERT_EQ(plan.notes.size(), 1u);
  const std::string& note = plan.notes[0];
  EXPECT_NE(note.find("allgather"), std::string::npos) << note;
  EXPECT_NE(note.find("float"), std::string::npos) << note;
  EXPECT_NE(note.find("16 B"), std::string::npos) << note;  // the smallest size that runs
  EXPECT_NE(note.find("4 ranks"), std::string::npos) << note;
}

TEST(PlanSweep, AvgThatCannotBeExactIsNotedOnceAndStillRuns) {
  auto config = request_of({CollectiveKind::allreduce}, {DataType::float32, DataType::int32},
                            {ReduceOp::avg}, {64, 128});
  const SweepPlan three = plan_sweep(config, 3);
  EXPECT_EQ(three.rows.size(), 4u);
  ASSERT_EQ(three.notes.size(), 1u);  // float only: integers sum, then divide
  EXPECT_NE(three.notes[0].find("allreduce float avg with 3 ranks is not validated"),
            std::string::npos)
      << three.notes[0];
  EXPECT_TRUE(plan_sweep(config, 4).notes.empty());  // times 1/4 is exact
  config.validated = false;
  EXPECT_TRUE(plan_sweep(config, 3).notes.empty());  // nothing to validate, nothing to say
}

TEST(PlanSweep, NotesNameEachCollectiveThatSkipped) {
  // double over 3 ranks: allreduce needs 8 B, the others 24 B.
  const auto config = request_of({CollectiveKind::allreduce, CollectiveKind::reduce_scatter},
                                  {DataType::float64}, {ReduceOp::sum, ReduceOp::min},
                                  {4, 8, 16, 32});
  const SweepPlan plan = plan_sweep(config, 3);
  // allreduce: 8, 16, 32 for each of 2 ops; reduce-scatter: only 32 -> 24 B for each op.
  ASSERT_EQ(plan.rows.size(), 8u);
  EXPECT_EQ(plan.rows[6].collective, CollectiveKind::reduce_scatter);
  EXPECT_EQ(plan.rows[6].shape.size_bytes, 24u);
  ASSERT_EQ(plan.notes.size(), 2u);  // one per collective and datatype, not per op
  EXPECT_NE(plan.notes[0].find("allreduce"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[0].find("8 B"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[1].find("reduce_scatter"), std::string::npos) << plan.notes[1];
  EXPECT_NE(plan.notes[1].find("24 B"), std::string::npos) << plan.notes[1];
}

TEST(PlanSweep, SizesThatRoundToTheSameShapeRunOnce) {
  // float over 3 ranks: 96..107 B all round to 8 floats a rank (96 B); 108 B is 9 a rank.
  const auto config = request_of({CollectiveKind::allgather}, {DataType::float32},
                                  {ReduceOp::sum}, {96, 100, 104, 107, 108});
  const SweepPlan plan = plan_sweep(config, 3);
  ASSERT_EQ(plan.rows.size(), 2u);
  EXPECT_EQ(plan.rows[0].shape.size_bytes, 96u);
  EXPECT_EQ(plan.rows[0].shape.count, 8u);
  EXPECT_EQ(plan.rows[1].shape.size_bytes, 108u);
  EXPECT_EQ(plan.rows[1].shape.count, 9u);

  // Allreduce rounds to whole elements: 9..15 B of double is one element.
  const auto ar = request_of({CollectiveKind::allreduce}, {DataType::float64}, {ReduceOp::sum},
                              {8, 9, 15, 16});
  const SweepPlan ar_plan = plan_sweep(ar, 2);
  ASSERT_EQ(ar_plan.rows.size(), 2u);
  EXPECT_EQ(ar_plan.rows[0].shape.size_bytes, 8u);
  EXPECT_EQ(ar_plan.rows[1].shape.size_bytes, 16u);
}

TEST(BuffersFor, EveryRowFitsAndInPlaceSendHoldsTheResult) {
  // 1000 B over 3 ranks: float 83 a rank (996 B in all), double 41 a rank (984 B).
  const std::vector<std::size_t> sizes{100, 1000};
  const std::vector<DataType> types{DataType::float32, DataType::float64};
  const auto sizes_of = [](const SweepPlan& plan) {
    const BufferSizes b = buffers_for(plan);
    return std::pair{b.send_bytes, b.recv_bytes};
  };

  // Allgather sends one share and receives all p; in place the send buffer holds all p.
  EXPECT_EQ(sizes_of(plan_sweep(
                request_of({CollectiveKind::allgather}, types, {ReduceOp::sum}, sizes), 3)),
            (std::pair<std::size_t, std::size_t>{996, 996}));
  // Reduce-scatter sends the whole input and receives one block.
  EXPECT_EQ(sizes_of(plan_sweep(
                request_of({CollectiveKind::reduce_scatter}, types, {ReduceOp::sum}, sizes), 3)),
            (std::pair<std::size_t, std::size_t>{996, 83 * 4}));
  EXPECT_EQ(sizes_of(plan_sweep(request_of({CollectiveKind::allreduce}, types, {ReduceOp::sum},
                                            {1001}),
                                3)),
            (std::pair<std::size_t, std::size_t>{1000, 1000}));  // 250 floats
  // Nothing to run: room for the communicator's first call, one float per rank.
  const SweepPlan empty = plan_sweep(
      request_of({CollectiveKind::allgather}, {DataType::float64}, {ReduceOp::sum}, {8, 16}), 4);
  EXPECT_TRUE(empty.rows.empty());
  EXPECT_EQ(empty.notes.size(), 1u);
  EXPECT_EQ(sizes_of(empty), (std::pair<std::size_t, std::size_t>{16, 16}));

  const BufferSizes both = covering({996, 332}, {16, 996});
  EXPECT_EQ(std::pair(both.send_bytes, both.recv_bytes),
            (std::pair<std::size_t, std::size_t>{996, 996}));
}

TEST(PlanSweep, TheDefaultSweepWithThreeRanks) {
  const SweepRequest request = request_of(
      {CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reduce_scatter},
      {DataType::float32}, {ReduceOp::sum}, sweep_sizes(SweepSpec{}));
  const SweepPlan plan = plan_sweep(request, 3);
  // allreduce: all 24 sizes (8 B is two floats). allgather and reduce-scatter: 8 B is too
  // small for 3 floats (12 B), the other 23 sizes run.
  ASSERT_EQ(plan.rows.size(), 24u + 23u + 23u);
  EXPECT_EQ(plan.notes.size(), 2u);
  EXPECT_EQ(plan.rows[24].collective, CollectiveKind::allgather);
  EXPECT_EQ(plan.rows[24].shape.size_bytes, 12u);  // 16 B rounds down to one float per rank
  EXPECT_EQ(plan.rows[24].shape.count, 1u);
  const std::size_t big = std::size_t{64} << 20;
  // allreduce's buffer is the largest on both sides: reduce-scatter's input and allgather's
  // output at 64 MiB round down to 67108860 B.
  EXPECT_EQ(buffers_for(plan).send_bytes, big);
  EXPECT_EQ(buffers_for(plan).recv_bytes, big);
  EXPECT_EQ(plan.rows.back().collective, CollectiveKind::reduce_scatter);
  EXPECT_EQ(plan.rows.back().shape.send_count * 4, big / 12 * 12);
  EXPECT_EQ(plan.rows[24 + 22].shape.recv_count * 4, big / 12 * 12);

  // Without allreduce the buffers are the rounded ones.
  SweepRequest no_allreduce = request;
  no_allreduce.collectives = {CollectiveKind::allgather, CollectiveKind::reduce_scatter};
  const SweepPlan plan2 = plan_sweep(no_allreduce, 3);
  EXPECT_EQ(buffers_for(plan2).send_bytes, big / 12 * 12);  // reduce-scatter's input
  EXPECT_EQ(buffers_for(plan2).recv_bytes, big / 12 * 12);  // allgather's output
}

}  // namespace
}  // namespace collbench
