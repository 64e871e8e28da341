#include "collectives/collective.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

#include "collectives/collective_kind.h"

namespace collbench {
namespace {

constexpr std::size_t kFloat = 4;
constexpr std::size_t kDouble = 8;

TEST(ShapeFor, AllreduceSizeIsTheBuffer) {
  const Shape shape = shape_for(CollectiveKind::allreduce, 1024, kFloat, 4);
  EXPECT_EQ(shape.count, 256u);
  EXPECT_EQ(shape.send_count, 256u);
  EXPECT_EQ(shape.recv_count, 256u);
  EXPECT_EQ(shape.size_bytes, 1024u);
}

TEST(ShapeFor, AllreduceDoesNotDependOnRankCount) {
  for (int p : {1, 2, 3, 7, 512}) {
    SCOPED_TRACE(p);
    const Shape shape = shape_for(CollectiveKind::allreduce, 100, kFloat, p);
    EXPECT_EQ(shape.count, 25u);
    EXPECT_EQ(shape.size_bytes, 100u);
  }
}

TEST(ShapeFor, AllreduceRoundsDownToWholeElements) {
  const Shape shape = shape_for(CollectiveKind::allreduce, 100, kDouble, 3);
  EXPECT_EQ(shape.count, 12u);
  EXPECT_EQ(shape.send_count, 12u);
  EXPECT_EQ(shape.recv_count, 12u);
  EXPECT_EQ(shape.size_bytes, 96u);
}

TEST(ShapeFor, AllgatherSizeIsPTimesTheShare) {
  const Shape shape = shape_for(CollectiveKind::allgather, 1024, kFloat, 4);
  EXPECT_EQ(shape.count, 64u);       // each rank's share
  EXPECT_EQ(shape.send_count, 64u);  // each rank sends its share
  EXPECT_EQ(shape.recv_count, 256u); // and receives all p shares
  EXPECT_EQ(shape.size_bytes, 1024u);
}

TEST(ShapeFor, AllgatherRoundsAShareDownToWholeElements) {
  // 100 B of float over 3 ranks: 33.3 B a rank, 8 whole floats, 96 B in all.
  const Shape shape = shape_for(CollectiveKind::allgather, 100, kFloat, 3);
  EXPECT_EQ(shape.count, 8u);
  EXPECT_EQ(shape.send_count, 8u);
  EXPECT_EQ(shape.recv_count, 24u);
  EXPECT_EQ(shape.size_bytes, 96u);
}

TEST(ShapeFor, ReduceScatterSizeIsPTimesTheResult) {
  const Shape shape = shape_for(CollectiveKind::reduce_scatter, 1024, kFloat, 4);
  EXPECT_EQ(shape.count, 64u);        // each rank's result
  EXPECT_EQ(shape.send_count, 256u);  // each rank sends the whole input
  EXPECT_EQ(shape.recv_count, 64u);
  EXPECT_EQ(shape.size_bytes, 1024u);
}

TEST(ShapeFor, ReduceScatterRoundsAShareDownToWholeElements) {
  const Shape shape = shape_for(CollectiveKind::reduce_scatter, 100, kFloat, 3);
  EXPECT_EQ(shape.count, 8u);
  EXPECT_EQ(shape.send_count, 24u);
  EXPECT_EQ(shape.recv_count, 8u);
  EXPECT_EQ(shape.size_bytes, 96u);

  const Shape doubles = shape_for(CollectiveKind::reduce_scatter, 1000, kDouble, 7);
  EXPECT_EQ(doubles.count, 17u);  // 1000 / 56 = 17.86
  EXPECT_EQ(doubles.send_count, 119u);
  EXPECT_EQ(doubles.size_bytes, 952u);
}

TEST(ShapeFor, CountIsZeroWhenTooSmallForOneElementPerRank) {
  // 8 B of float is 2 elements: enough for allreduce, not for 3 shares.
  EXPECT_EQ(shape_for(CollectiveKind::allreduce, 8, kFloat, 3).count, 2u);
  for (auto kind : {CollectiveKind::allgather, CollectiveKind::reduce_scatter}) {
    SCOPED_TRACE(name(kind));
    const Shape shape = shape_for(kind, 8, kFloat, 3);
    EXPECT_EQ(shape.count, 0u);
    EXPECT_EQ(shape.send_count, 0u);
    EXPECT_EQ(shape.recv_count, 0u);
    EXPECT_EQ(shape.size_bytes, 0u);
    // 12 B is exactly one float each.
    EXPECT_EQ(shape_for(kind, 12, kFloat, 3).count, 1u);
    EXPECT_EQ(shape_for(kind, 12, kFloat, 3).size_bytes, 12u);
  }
  const Shape tiny = shape_for(CollectiveKind::allreduce, 3, kFloat, 1);
  EXPECT_EQ(tiny.count, 0u);
  EXPECT_EQ(tiny.size_bytes, 0u);
}

TEST(ShapeFor, ReportedSizeNeverExceedsRequested) {
  for (auto kind : all_collectives())
    for (int p : {1, 2, 3, 4, 5, 7, 8})
      for (std::size_t element : {1u, 2u, 4u, 8u})
        for (std::size_t requested = 1; requested <= 300; ++requested) {
          const Shape s = shape_for(kind, requested, element, p);
          ASSERT_LE(s.size_bytes, requested);
          // Rounded down to the largest whole multiple: one more element per rank is too much.
          const bool whole = kind == CollectiveKind::allreduce ||
                             kind == CollectiveKind::broadcast || kind == CollectiveKind::reduce ||
                             kind == CollectiveKind::sendrecv;
          const std::size_t unit = whole ? element : element * p;
          ASSERT_EQ(s.size_bytes, requested / unit * unit)
              << name(kind) << " p=" << p << " element=" << element << " requested=" << requested;
        }
}

TEST(BusbwFactor, AllreduceIsTwoPMinusOneOverP) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::allreduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::allreduce, 3), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::allreduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::allreduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::allreduce, 1024), 2.0 * 1023 / 1024);
}

TEST(BusbwFactor, AllgatherAndReduceScatterArePMinusOneOverP) {
  for (auto kind : {CollectiveKind::allgather, CollectiveKind::reduce_scatter}) {
    SCOPED_TRACE(name(kind));
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 2), 0.5);
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 3), 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 4), 0.75);
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 7), 6.0 / 7.0);
  }
}

// nccl-tests' gather.cu and scatter.cu (GatherGetBw, ScatterGetBw): (p−1)/p; sendrecv.cu
// (SendRecvGetBw): 1 at any rank count.
TEST(BusbwFactor, GatherAndScatterArePMinusOneOverPAndSendrecvIsOne) {
  for (auto kind : {CollectiveKind::gather, CollectiveKind::scatter}) {
    SCOPED_TRACE(name(kind));
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 2), 0.5);
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 3), 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(busbw_factor(kind, 8), 7.0 / 8.0);
  }
  for (int p : {1, 2, 3, 8, 1024}) EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::sendrecv, p), 1.0);
}

TEST(BusbwFactor, AlltoallIsPMinusOneOverP) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::alltoall, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::alltoall, 3), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveKind::alltoall, 8), 7.0 / 8.0);
}

// nccl-tests counts a broadcast's and a reduce's bus bandwidth as their algorithm bandwidth, at
// any rank count: the whole buffer crosses each link once.
TEST(BusbwFactor, BroadcastAndReduceAreOne) {
  for (auto kind : {CollectiveKind::broadcast, CollectiveKind::reduce})
    for (int p : {1, 2, 3, 8, 1024}) EXPECT_DOUBLE_EQ(busbw_factor(kind, p), 1.0) << name(kind);
}

TEST(BusbwFactor, OneRankMovesNothingThroughPeers) {
  for (auto kind : all_collectives()) {
    if (!has_root(kind) && has_rank_families(kind)) {
      EXPECT_EQ(busbw_factor(kind, 1), 0.0) << name(kind);
    }
  }
}

// Alltoall's count is one block, what each rank sends each peer; both buffers are p blocks.
TEST(ShapeFor, AlltoallCountIsOneBlockPerPeer) {
  const Shape shape = shape_for(CollectiveKind::alltoall, 1024, kFloat, 4);
  EXPECT_EQ(shape.count, 64u);
  EXPECT_EQ(shape.send_count, 256u);
  EXPECT_EQ(shape.recv_count, 256u);
  EXPECT_EQ(shape.size_bytes, 1024u);
  const Shape odd = shape_for(CollectiveKind::alltoall, 100, kFloat, 3);
  EXPECT_EQ(odd.count, 8u);
  EXPECT_EQ(odd.send_count, 24u);
  EXPECT_EQ(odd.size_bytes, 96u);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(in_place_send_offset(CollectiveKind::alltoall, rank, odd), 0u);
    EXPECT_EQ(in_place_recv_offset(CollectiveKind::alltoall, rank, odd), 0u);
  }
}

// As nccl-tests' GatherGetCollByteCount and ScatterGetCollByteCount: the count is one share,
// the root's side is p shares; in place, a gather's input and a scatter's result sit at
// rank × share of the root-sized buffer. SendRecvGetCollByteCount: the whole buffer both ways.
TEST(ShapeFor, GatherScatterAndSendrecvSizeAsNcclTests) {
  const Shape gather = shape_for(CollectiveKind::gather, 1000, kFloat, 4);
  EXPECT_EQ(gather.count, 62u);
  EXPECT_EQ(gather.send_count, 62u);
  EXPECT_EQ(gather.recv_count, 248u);
  EXPECT_EQ(gather.size_bytes, 992u);
  const Shape scatter = shape_for(CollectiveKind::scatter, 1000, kFloat, 4);
  EXPECT_EQ(scatter.count, 62u);
  EXPECT_EQ(scatter.send_count, 248u);
  EXPECT_EQ(scatter.recv_count, 62u);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(in_place_send_offset(CollectiveKind::gather, rank, gather), 62u * rank);
    EXPECT_EQ(in_place_recv_offset(CollectiveKind::gather, rank, gather), 0u);
    EXPECT_EQ(in_place_send_offset(CollectiveKind::scatter, rank, scatter), 0u);
    EXPECT_EQ(in_place_recv_offset(CollectiveKind::scatter, rank, scatter), 62u * rank);
  }
  const Shape sendrecv = shape_for(CollectiveKind::sendrecv, 1000, kFloat, 4);
  EXPECT_EQ(sendrecv.count, 250u);
  EXPECT_EQ(sendrecv.send_count, 250u);
  EXPECT_EQ(sendrecv.recv_count, 250u);
  EXPECT_EQ(in_place_recv_offset(CollectiveKind::sendrecv, 3, sendrecv), 0u);
}

TEST(ShapeFor, BroadcastAndReduceMoveTheWholeBufferAtAnyRankCount) {
  for (auto kind : {CollectiveKind::broadcast, CollectiveKind::reduce})
    for (int p : {1, 2, 3, 7}) {
      SCOPED_TRACE(std::string(name(kind)) + " p=" + std::to_string(p));
      const Shape shape = shape_for(kind, 100, kFloat, p);
      EXPECT_EQ(shape.count, 25u);
      EXPECT_EQ(shape.send_count, 25u);
      EXPECT_EQ(shape.recv_count, 25u);
      EXPECT_EQ(shape.size_bytes, 100u);
    }
}

// A reduce leaves its result on the root only; a broadcast's root keeps its input, so the others
// hold what there is to check.
TEST(HoldsResult, RootedCollectivesLeaveResultsWhereTheirRootSays) {
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_TRUE(holds_result(CollectiveKind::allreduce, rank, 2));
    EXPECT_TRUE(holds_result(CollectiveKind::alltoall, rank, 2));
    EXPECT_EQ(holds_result(CollectiveKind::reduce, rank, 2), rank == 2);
    EXPECT_EQ(holds_result(CollectiveKind::broadcast, rank, 2), rank != 2);
    EXPECT_EQ(holds_result(CollectiveKind::gather, rank, 2), rank == 2);
    EXPECT_TRUE(holds_result(CollectiveKind::scatter, rank, 2));
    EXPECT_EQ(holds_input(CollectiveKind::scatter, rank, 2), rank == 2);
    EXPECT_TRUE(holds_input(CollectiveKind::gather, rank, 2));
    EXPECT_TRUE(holds_result(CollectiveKind::sendrecv, rank, 2));
  }
  EXPECT_TRUE(has_root(CollectiveKind::gather));
  EXPECT_TRUE(has_root(CollectiveKind::scatter));
  EXPECT_FALSE(has_root(CollectiveKind::sendrecv));
  EXPECT_TRUE(has_root(CollectiveKind::broadcast));
  EXPECT_TRUE(has_root(CollectiveKind::reduce));
  EXPECT_FALSE(has_root(CollectiveKind::alltoall));
  EXPECT_FALSE(has_root(CollectiveKind::reduce_scatter));
}

// The composed allreduce holds the whole buffer on every rank, cut into one share a rank inside:
// its count is the buffer's, rounded down to whole shares.
TEST(ShapeFor, HierarchicalAllreduceRoundsDownToWholeShares) {
  const Shape shape = shape_for(CollectiveKind::allreduce_hier, 1024, kFloat, 3);
  EXPECT_EQ(shape.count, 255u);
  EXPECT_EQ(shape.send_count, 255u);
  EXPECT_EQ(shape.recv_count, 255u);
  EXPECT_EQ(shape.size_bytes, 1020u);
  EXPECT_EQ(shape_for(CollectiveKind::allreduce_hier, 1024, kFloat, 4).count, 256u);
  EXPECT_EQ(busbw_factor(CollectiveKind::allreduce_hier, 4),
            busbw_factor(CollectiveKind::allreduce, 4));
  EXPECT_EQ(in_place_recv_offset(CollectiveKind::allreduce_hier, 2, shape), 0u);
}

TEST(UsesReduceOp, AllgatherAlltoallAndBroadcastReduceNothing) {
  EXPECT_TRUE(uses_reduce_op(CollectiveKind::allreduce));
  EXPECT_FALSE(uses_reduce_op(CollectiveKind::allgather));
  EXPECT_TRUE(uses_reduce_op(CollectiveKind::reduce_scatter));
  EXPECT_FALSE(uses_reduce_op(CollectiveKind::alltoall));
  EXPECT_FALSE(uses_reduce_op(CollectiveKind::broadcast));
  EXPECT_TRUE(uses_reduce_op(CollectiveKind::reduce));
  EXPECT_TRUE(uses_reduce_op(CollectiveKind::allreduce_hier));
}

TEST(InPlaceOffsets, AllreduceUsesTheWholeBufferAtZero) {
  const Shape shape = shape_for(CollectiveKind::allreduce, 1024, kFloat, 4);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(in_place_send_offset(CollectiveKind::allreduce, rank, shape), 0u);
    EXPECT_EQ(in_place_recv_offset(CollectiveKind::allreduce, rank, shape), 0u);
  }
}

TEST(InPlaceOffsets, AllgatherReadsItsShareFromRankTimesShare) {
  const Shape shape = shape_for(CollectiveKind::allgather, 100, kFloat, 3);  // share 8
  ASSERT_EQ(shape.count, 8u);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(in_place_send_offset(CollectiveKind::allgather, rank, shape), 8u * rank);
    EXPECT_EQ(in_place_recv_offset(CollectiveKind::allgather, rank, shape), 0u);
    // The share fits inside the receive buffer.
    EXPECT_LE(in_place_send_offset(CollectiveKind::allgather, rank, shape) + shape.send_count,
              shape.recv_count);
  }
}

TEST(InPlaceOffsets, ReduceScatterWritesItsResultAtRankTimesShare) {
  const Shape shape = shape_for(CollectiveKind::reduce_scatter, 100, kFloat, 3);  // share 8
  ASSERT_EQ(shape.count, 8u);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(in_place_send_offset(CollectiveKind::reduce_scatter, rank, shape), 0u);
    EXPECT_EQ(in_place_recv_offset(CollectiveKind::reduce_scatter, rank, shape), 8u * rank);
    EXPECT_LE(in_place_recv_offset(CollectiveKind::reduce_scatter, rank, shape) +
                  shape.recv_count,
              shape.send_count);
  }
}

TEST(CollectiveKindNames, RoundTripAndAliases) {
  for (auto kind : all_collectives()) EXPECT_EQ(parse_collective(name(kind)), kind);
  EXPECT_EQ(parse_collective("hier"), CollectiveKind::allreduce_hier);
  EXPECT_EQ(parse_collective("reduce-scatter"), CollectiveKind::reduce_scatter);
  EXPECT_EQ(parse_collective("reducescatter"), CollectiveKind::reduce_scatter);
  EXPECT_EQ(parse_collective("bcast"), CollectiveKind::broadcast);
  EXPECT_EQ(parse_collective("all-to-all"), CollectiveKind::alltoall);
  EXPECT_FALSE(parse_collective("no_such_collective").has_value());
  EXPECT_FALSE(parse_collective("").has_value());
}

TEST(CollectiveDescriptors, EachDescribesItsOwnKind) {
  for (auto kind : all_collectives()) {
    const Collective& c = describe(kind);
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.name, name(kind));
    // The crossover p* and the bus bandwidth are the first family's; sendrecv alone has none.
    if (!has_rank_families(kind)) {
      EXPECT_EQ(kind, CollectiveKind::sendrecv);
      EXPECT_TRUE(c.log_depth.empty());
      continue;
    }
    EXPECT_EQ(&reference_family(kind), &c.families.front());
    for (const RankFamily& family : c.families)
      EXPECT_EQ(find_family(kind, family.name), &family);
    EXPECT_EQ(find_family(kind, "butterfly"), nullptr);
    // The smallest size gives exactly one element per rank.
    const std::size_t smallest = smallest_size(kind, kFloat, 3);
    EXPECT_EQ(shape_for(kind, smallest, kFloat, 3).count, c.cut_into_shares ? 3u : 1u);
    EXPECT_EQ(shape_for(kind, smallest - 1, kFloat, 3).count, 0u);
  }
}

// docs/DESIGN.md's families: ring allreduce 2(p-1)α + 2(p-1)/p·nβ, tree 2·log2(p)·α + 2nβ, ring
// allgather and reduce-scatter (p-1)α + (p-1)/p·nβ.
TEST(CollectiveDescriptors, RankFamiliesAreTheTextbookCosts) {
  for (double p : {2.0, 3.0, 8.0, 1024.0}) {
    SCOPED_TRACE(p);
    const RankFamily& ring = *find_family(CollectiveKind::allreduce, "ring");
    EXPECT_DOUBLE_EQ(ring.latency_factor(p), 2 * (p - 1));
    EXPECT_DOUBLE_EQ(ring.bandwidth_factor(p), 2 * (p - 1) / p);
    const RankFamily& tree = *find_family(CollectiveKind::allreduce, "tree");
    EXPECT_DOUBLE_EQ(tree.latency_factor(p), 2 * std::log2(p));
    EXPECT_DOUBLE_EQ(tree.bandwidth_factor(p), 2);
    for (auto kind : {CollectiveKind::allgather, CollectiveKind::reduce_scatter}) {
      ASSERT_EQ(describe(kind).families.size(), 1u);
      EXPECT_DOUBLE_EQ(describe(kind).families[0].latency_factor(p), p - 1);
      EXPECT_DOUBLE_EQ(describe(kind).families[0].bandwidth_factor(p), (p - 1) / p);
    }
    // Gather and scatter: linear (p−1)α + (p−1)/p·nβ, binomial log2(p)·α + (p−1)/p·nβ.
    for (auto kind : {CollectiveKind::gather, CollectiveKind::scatter}) {
      const RankFamily& linear = *find_family(kind, "linear");
      EXPECT_DOUBLE_EQ(linear.latency_factor(p), p - 1);
      EXPECT_DOUBLE_EQ(linear.bandwidth_factor(p), (p - 1) / p);
      ASSERT_EQ(describe(kind).log_depth.size(), 1u);
      EXPECT_DOUBLE_EQ(describe(kind).log_depth[0].latency_factor(p), std::log2(p));
      EXPECT_DOUBLE_EQ(describe(kind).log_depth[0].bandwidth_factor(p), (p - 1) / p);
    }
    // A ring's bandwidth factor is nccl-tests' bus factor.
    for (auto kind : all_collectives())
      if (has_rank_families(kind))
        EXPECT_DOUBLE_EQ(busbw_factor(kind, static_cast<int>(p)),
                         describe(kind).families[0].bandwidth_factor(p));
  }
}

}  // namespace
}  // namespace collbench
