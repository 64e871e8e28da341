#include "harness/store/topology_record.h"

#include <cstddef>

namespace collbench {
namespace {

h5::Handle build_topology_row_type() {
  h5::Handle type = h5::own(H5Tcreate(H5T_COMPOUND, sizeof(TopologyRow)), "H5Tcreate");
  auto insert = [&type](const char* name, std::size_t offset, hid_t member_type) {
    h5::check(H5Tinsert(type.get(), name, offset, member_type), "H5Tinsert");
  };
  auto insert_text = [&insert](const char* name, std::size_t offset, std::size_t bytes) {
    insert(name, offset, h5::fixed_string_type(bytes).get());
  };
  insert("rank", offsetof(TopologyRow, rank), H5T_NATIVE_INT32);
  insert_text("host", offsetof(TopologyRow, host), sizeof(TopologyRow::host));
  insert("local_rank", offsetof(TopologyRow, local_rank), H5T_NATIVE_INT32);
  insert("node_index", offsetof(TopologyRow, node_index), H5T_NATIVE_INT32);
  insert_text("cpu_affinity", offsetof(TopologyRow, cpu_affinity),
              sizeof(TopologyRow::cpu_affinity));
  insert_text("gpu_name", offsetof(TopologyRow, gpu_name), sizeof(TopologyRow::gpu_name));
  insert_text("gpu_bus_id", offsetof(TopologyRow, gpu_bus_id), sizeof(TopologyRow::gpu_bus_id));
  insert_text("gpu_peers", offsetof(TopologyRow, gpu_peers), sizeof(TopologyRow::gpu_peers));
  insert_text("nic", offsetof(TopologyRow, nic), sizeof(TopologyRow::nic));
  return type;
}

}  // namespace

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
  static const h5::Handle type = build_topology_row_type();
  return type.get();
}

}  // namespace collbench
