#pragma once
// Placement: which ranks form the communicators a point runs on. A layout is a set of disjoint
// groups of one size that run at once; the point's time is the slowest group's.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// world: every rank; intra: the ranks of each node; inter: one rank per node (a rail); packed
// and spread: --ranks subsets that fill a node first or deal ranks out over the nodes.
enum class Placement { world, intra, inter, packed, spread };

std::string_view name(Placement placement);
std::optional<Placement> parse_placement(std::string_view text);
std::span<const Placement> all_placements();
// The placements that split the whole job, which --placement names.
std::span<const Placement> job_placements();
bool is_subset(Placement placement);

// Where one world rank runs.
struct RankPlace {
  int node = 0;
  int local_rank = 0;
};

struct GroupLayout {
  Placement placement = Placement::world;
  int group_size = 0;
  std::vector<std::vector<int>> groups;  // world ranks, ascending within a group
  std::string skipped;                   // why the placement does not apply here; no groups then

  // This rank's group index, or -1 when it sits the layout out.
  int group_of(int world_rank) const;
};

// All ranks in one group.
GroupLayout world_layout(std::span<const RankPlace> ranks);
// One group per node that has two ranks or more, all of the size of the smallest such node
// (its first local ranks), so that every group measures the same thing.
GroupLayout intra_layout(std::span<const RankPlace> ranks);
// One group per local-rank index present on every node (a rail): one rank per node each.
GroupLayout inter_layout(std::span<const RankPlace> ranks);
// The whole job split by `placement` (world, intra or inter).
GroupLayout job_layout(std::span<const RankPlace> ranks, Placement placement);
// One group of `size` ranks: packed fills a node before the next, spread deals them out over
// the nodes round-robin.
GroupLayout subset_layout(std::span<const RankPlace> ranks, int size, Placement placement);

// Powers of two from 2 up to the world size.
std::vector<int> powers_of_two_up_to(int world_size);

}  // namespace collbench
