#pragma once
// A row of the /topology table: where one rank runs. Strings are fixed-length and, when longer,
// cut at a character boundary: they describe a rank, while the rank number identifies it.
#include <cstdint>

#include "harness/store/h5.h"
#include "harness/store/result_file.h"

namespace collbench {

struct TopologyRow {
  std::int32_t rank;
  char host[64];
  std::int32_t local_rank;
  std::int32_t node_index;
  char cpu_affinity[128];
  char gpu_name[64];
  char gpu_bus_id[32];
  char gpu_peers[256];
  char nic[512];  // every port and interface of a DGX-class node
};

TopologyRow to_topology_row(const RankTopology& rank);
RankTopology from_topology_row(const TopologyRow& row);

// The memory layout of TopologyRow, built once; files store it packed.
hid_t topology_row_type();

}  // namespace collbench
