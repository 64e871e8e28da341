#pragma once
// The all-pairs matrix of `collbench links`: every pair of hosts (one rank each, the lowest) or of
// ranks, in rounds of disjoint pairs (plan/pair_rounds.h), each pair measured by its two ranks
// at once while the other ranks wait. Rank 0 learns each round's points when it ends.
#include <functional>
#include <vector>

#include "backends/communicator.h"
#include "backends/point_to_point.h"
#include "harness/links/link_sampler.h"
#include "topo/discovery.h"

namespace collbench {

enum class LinkEnds { hosts, ranks };

struct LinkSchedule {
  LinkEnds ends = LinkEnds::hosts;
  // Pairs measured at once, of a round's; 0: all of them. Fewer where the hosts do not have a
  // core for each rank of a round (the virtual cluster of one machine).
  int pairs_at_once = 0;
};

// The ranks whose links are measured, in participant order: the lowest rank of each host, or
// every rank.
std::vector<int> link_participants(const JobTopology& topology, LinkEnds ends);

// Called on rank 0 in the last pass with each group's points, their samples pooled over the
// passes, hosts, kind and transport filled in, as the group ends.
using LinkRoundDone = std::function<void(std::vector<LinkPoint>)>;

// Collective over `world`; the ranks outside a round's pairs wait without taking a core. Throws
// what the libraries throw (a peer that died: the watchdog).
void measure_link_matrix(Communicator& world, PointToPoint& links, const JobTopology& topology,
                         const LinkSchedule& schedule, const LinkPlan& plan,
                         const LinkRoundDone& round_done);

}  // namespace collbench
