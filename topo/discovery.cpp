#include "discovery.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "topo/binding.h"
#include "topo/network.h"

namespace collbench {
namespace {

constexpr std::size_t kFieldBytes = 256;

// One rank's facts as fixed-size text, so that a plain gather carries them.
struct RankRecord {
  std::array<char, kFieldBytes> host{};
  std::array<char, kFieldBytes> cpus{};
  std::array<char, kFieldBytes> gpu_name{};
  std::array<char, kFieldBytes> gpu_bus_id{};
  std::array<char, kFieldBytes> gpu_peers{};
  std::array<char, kFieldBytes> nics{};
  int local_rank = 0;
  int cores_spanned = 0;
  int host_cores = 0;
  int node_leader = 0;  // world rank of local rank 0: names the node
};

void copy_text(std::array<char, kFieldBytes>& field, const std::string& text) {
  std::strncpy(field.data(), text.c_str(), kFieldBytes - 1);
}

}  // namespace

std::string this_host() {
  std::array<char, kFieldBytes> name{};
  gethostname(name.data(), name.size() - 1);
  return name.data();
}

std::string cpu_affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::string list;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!list.empty()) list += ',';
    list += last == cpu ? fmt::format("{}", cpu) : fmt::format("{}-{}", cpu, last);
    cpu = last;
  }
  return list;
}

JobTopology discover_topology(Communicator& world, const DeviceDescription& device) {
  auto node = world.split_node();
  RankRecord mine;
  copy_text(mine.host, this_host());
  const std::string cpus = cpu_affinity_list();
  copy_text(mine.cpus, cpus);
  mine.cores_spanned = cores_spanned(cpus);
  mine.host_cores = online_cores();
  copy_text(mine.gpu_name, device.name);
  copy_text(mine.gpu_bus_id, device.bus_id);
  copy_text(mine.gpu_peers, device.peers);
  copy_text(mine.nics, describe(network_devices()));
  mine.local_rank = node->rank();
  mine.node_leader = world.rank();
  node->broadcast(std::as_writable_bytes(std::span(&mine.node_leader, 1)), 0);

  // Every rank learns every rank's place: placements group ranks by node on every rank.
  std::vector<RankRecord> records(world.size());
  world.gather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(records)), 0);
  world.broadcast(std::as_writable_bytes(std::span(records)), 0);

  JobTopology topology;
  topology.ranks_on_my_node = node->size();

  std::map<int, int> node_of_leader;  // ordered by leader rank: node 0 holds rank 0
  for (const auto& record : records) node_of_leader.emplace(record.node_leader, 0);
  int index = 0;
  for (auto& [leader, node_index] : node_of_leader) {
    node_index = index++;
    topology.hosts.emplace_back(records[leader].host.data());
  }
  std::vector<int> ranks_on_node(node_of_leader.size());
  for (int rank = 0; rank < world.size(); ++rank) {
    const auto& record = records[rank];
    const int node_index = node_of_leader[record.node_leader];
    ++ranks_on_node[node_index];
    topology.ranks.push_back({rank, record.host.data(), record.local_rank, node_index,
                              record.cpus.data(), record.gpu_name.data(),
                              record.gpu_bus_id.data(), record.gpu_peers.data(),
                              record.nics.data(), record.cores_spanned, record.host_cores});
  }
  topology.self = topology.ranks[world.rank()];
  topology.nodes = static_cast<int>(node_of_leader.size());
  topology.max_ranks_per_node = *std::max_element(ranks_on_node.begin(), ranks_on_node.end());
  return topology;
}

}  // namespace collbench
