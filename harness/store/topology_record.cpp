#include "harness/store/topology_record.h"

#include <cstddef>

#include "harness/store/row_type.h"

namespace collbench {

TopologyRow to_topology_row(const RankTopology& rank) {
  TopologyRow row{};
  row.rank = rank.rank;
  h5::store_fixed_string(rank.host, row.host);
  row.local_rank = rank.local_rank;
  row.node_index = rank.node_index;
  h5::store_fixed_string(rank.cpu_affinity, row.cpu_affinity);
  h5::store_fixed_string(rank.gpu_name, row.gpu_name);
  h5::store_fixed_string(rank.gpu_bus_id, row.gpu_bus_id);
  h5::store_fixed_string(rank.gpu_peers, row.gpu_peers);
  h5::store_fixed_string(rank.nic, row.nic);
  return row;
}

RankTopology from_topology_row(const TopologyRow& row) {
  return RankTopology{.rank = row.rank,
                      .host = h5::load_fixed_string(row.host),
                      .local_rank = row.local_rank,
                      .node_index = row.node_index,
                      .cpu_affinity = h5::load_fixed_string(row.cpu_affinity),
                      .gpu_name = h5::load_fixed_string(row.gpu_name),
                      .gpu_bus_id = h5::load_fixed_string(row.gpu_bus_id),
                      .gpu_peers = h5::load_fixed_string(row.gpu_peers),
                      .nic = h5::load_fixed_string(row.nic)};
}

hid_t topology_row_type() {
  static const h5::Handle type =
      COLLBENCH_ROW_TYPE(TopologyRow, rank, host, local_rank, node_index, cpu_affinity, gpu_name,
                         gpu_bus_id, gpu_peers, nic);
  return type.get();
}

}  // namespace collbench
