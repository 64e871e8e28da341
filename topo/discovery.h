#pragma once
// Who runs where: each rank's host, node and CPUs, found at run time and never assumed from
// rank numbers. Nodes are the library's shared-memory split, labelled with host names.
#include <string>
#include <vector>

#include "backends/communicator.h"
#include "topo/rank_topology.h"

namespace collbench {

struct JobTopology {
  std::vector<RankTopology> ranks;  // every rank's, on every rank
  RankTopology self;                // this rank
  int ranks_on_my_node = 0;
  int nodes = 0;
  int max_ranks_per_node = 0;
  std::vector<std::string> hosts;   // one per node, in node order
};

// Collective: every rank of `world` calls it, with its own accelerator (empty for host backends).
JobTopology discover_topology(Communicator& world, const DeviceDescription& device = {});

std::string this_host();

// This process's CPU affinity as a list, e.g. "0-3,8".
std::string cpu_affinity_list();

}  // namespace collbench
