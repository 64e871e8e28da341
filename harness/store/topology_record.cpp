#include "harness/store/topology_record.h"

#include <cstddef>

#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"

namespace collbench {

// Every column: a rank's topology and its row share them all.
#define TOPOLOGY_MEMBERS \
  rank, host, local_rank, node_index, cpu_affinity, gpu_name, gpu_bus_id, gpu_peers, nic

COLLBENCH_SHARED_MEMBERS(RankTopology, TopologyRow, TOPOLOGY_MEMBERS)

TopologyRow to_topology_row(const RankTopology& rank) { return h5::row_of<TopologyRow>(rank); }

RankTopology from_topology_row(const TopologyRow& row) { return h5::record_of<RankTopology>(row); }

hid_t topology_row_type() {
  static const h5::Handle type = COLLBENCH_ROW_TYPE(TopologyRow, TOPOLOGY_MEMBERS);
  return type.get();
}

}  // namespace collbench
