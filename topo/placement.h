#pragma once
// Placement: which ranks form the communicators a point runs on. A layout is a set of disjoint
// groups of one size that run at once; the point's time is the slowest group's.
#include <span>
#include <string>
#include <vector>

namespace collbench {

// Where one world rank runs.
struct RankPlace {
  int node = 0;
  int local_rank = 0;
};

struct GroupLayout {
  std::string placement;                 // world, intra, inter, packed or spread
  int group_size = 0;
  std::vector<std::vector<int>> groups;  // world ranks, ascending within a group
  std::string skipped;                   // why the placement does not apply here; no groups then

  // This rank's group index, or -1 when it sits the layout out.
  int group_of(int world_rank) const;
};

enum class Spread { packed, spread };

// All ranks in one group.
GroupLayout world_layout(std::span<const RankPlace> ranks);
// One group per node that has two ranks or more, all of the size of the smallest such node
// (its first local ranks), so that every group measures the same thing.
GroupLayout intra_layout(std::span<const RankPlace> ranks);
// One group per local-rank index present on every node (a rail): one rank per node each.
GroupLayout inter_layout(std::span<const RankPlace> ranks);
// One group of `size` ranks: packed fills a node before the next, spread deals them out over
// the nodes round-robin.
GroupLayout subset_layout(std::span<const RankPlace> ranks, int size, Spread spread);

// Powers of two from 2 up to the world size.
std::vector<int> powers_of_two_up_to(int world_size);

}  // namespace collbench
