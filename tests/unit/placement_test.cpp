#include "topo/placement.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace collbench {
namespace {

using Groups = std::vector<std::vector<int>>;

// Ranks numbered node by node, as mpirun's default mapping gives them.
std::vector<RankPlace> nodes_of(const std::vector<int>& ranks_per_node) {
  std::vector<RankPlace> ranks;
  for (int node = 0; node < static_cast<int>(ranks_per_node.size()); ++node)
    for (int local = 0; local < ranks_per_node[node]; ++local) ranks.push_back({node, local});
  return ranks;
}

TEST(Placement, ThreeNodesOfTwo) {
  const auto ranks = nodes_of({2, 2, 2});
  EXPECT_EQ(world_layout(ranks).groups, (Groups{{0, 1, 2, 3, 4, 5}}));
  const GroupLayout intra = intra_layout(ranks);
  EXPECT_EQ(intra.groups, (Groups{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(intra.group_size, 2);
  const GroupLayout inter = inter_layout(ranks);
  EXPECT_EQ(inter.groups, (Groups{{0, 2, 4}, {1, 3, 5}}));  // one rail per local rank
  EXPECT_EQ(inter.group_size, 3);
  EXPECT_EQ(inter.group_of(3), 1);
}

TEST(Placement, UnevenNodesUseWhatEveryGroupHas) {
  const auto ranks = nodes_of({3, 1});
  // Only the node with three ranks has intra-node pairs; the lone rank sits it out.
  const GroupLayout intra = intra_layout(ranks);
  EXPECT_EQ(intra.groups, (Groups{{0, 1, 2}}));
  EXPECT_EQ(intra.group_of(3), -1);
  // Only local rank 0 exists on both nodes: one rail.
  EXPECT_EQ(inter_layout(ranks).groups, (Groups{{0, 3}}));
  // Nodes of 3 and 2 ranks: intra groups take the smaller size so they measure the same thing.
  EXPECT_EQ(intra_layout(nodes_of({3, 2})).groups, (Groups{{0, 1}, {3, 4}}));
}

TEST(Placement, RanksInterleavedOverNodesAreGroupedByNodeNotByNumber) {
  // mpirun --map-by node: rank 0 on node 0, rank 1 on node 1, rank 2 on node 0, ...
  const std::vector<RankPlace> ranks{{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  EXPECT_EQ(intra_layout(ranks).groups, (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(inter_layout(ranks).groups, (Groups{{0, 1}, {2, 3}}));
}

TEST(Placement, PlacementsThatMakeNoSenseAreSkippedWithAReason) {
  const GroupLayout inter = inter_layout(nodes_of({4}));
  EXPECT_TRUE(inter.groups.empty());
  EXPECT_NE(inter.skipped.find("one node"), std::string::npos) << inter.skipped;
  const GroupLayout intra = intra_layout(nodes_of({1, 1, 1}));
  EXPECT_TRUE(intra.groups.empty());
  EXPECT_NE(intra.skipped.find("one rank"), std::string::npos) << intra.skipped;
  EXPECT_FALSE(subset_layout(nodes_of({2}), 3, Placement::packed).skipped.empty());
}

TEST(Placement, PackedFillsANodeFirstAndSpreadDealsRoundRobin) {
  const auto ranks = nodes_of({3, 3});
  EXPECT_EQ(subset_layout(ranks, 2, Placement::packed).groups, (Groups{{0, 1}}));
  EXPECT_EQ(subset_layout(ranks, 4, Placement::packed).groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(subset_layout(ranks, 2, Placement::spread).groups, (Groups{{0, 3}}));
  EXPECT_EQ(subset_layout(ranks, 3, Placement::spread).groups, (Groups{{0, 1, 3}}));
  EXPECT_EQ(subset_layout(ranks, 3, Placement::spread).placement, Placement::spread);
  // Uneven nodes: spread keeps dealing from the nodes that still have ranks.
  EXPECT_EQ(subset_layout(nodes_of({1, 3}), 4, Placement::spread).groups, (Groups{{0, 1, 2, 3}}));
}

TEST(Placement, NamesRoundTripAndOnlyTheJobPlacementsSplitTheWholeJob) {
  for (Placement placement : all_placements())
    EXPECT_EQ(parse_placement(name(placement)), placement) << name(placement);
  EXPECT_FALSE(parse_placement("rack").has_value());
  EXPECT_EQ(all_placements().size(), 5u);
  const auto ranks = nodes_of({2, 2});
  for (Placement placement : job_placements()) {
    EXPECT_FALSE(is_subset(placement));
    EXPECT_EQ(job_layout(ranks, placement).placement, placement);
  }
  EXPECT_EQ(job_layout(ranks, Placement::inter).groups, inter_layout(ranks).groups);
  EXPECT_THROW(job_layout(ranks, Placement::packed), std::invalid_argument);
  EXPECT_THROW(subset_layout(ranks, 2, Placement::world), std::invalid_argument);
}

TEST(Placement, PowersOfTwo) {
  EXPECT_EQ(powers_of_two_up_to(1), std::vector<int>{});
  EXPECT_EQ(powers_of_two_up_to(4), (std::vector<int>{2, 4}));
  EXPECT_EQ(powers_of_two_up_to(7), (std::vector<int>{2, 4}));
}

}  // namespace
}  // namespace collbench
