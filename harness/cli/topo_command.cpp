#include "topo_command.h"

#include <fmt/format.h>

#include "backends/registry.h"
#include "harness/errors.h"
#include "harness/cli/job_start.h"
#include "topo/discovery.h"

namespace collbench {
namespace {

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

void print_table(const JobTopology& topology, const std::string& backend) {
  fmt::print("# collbench topo: {} ranks on {} node{} ({} per node at most), backend {}\n",
             topology.ranks.size(), topology.nodes, topology.nodes == 1 ? "" : "s",
             topology.max_ranks_per_node, backend);
  std::size_t host_width = 4, cpu_width = 4, gpu_width = 3, bus_width = 6;
  for (const auto& rank : topology.ranks) {
    host_width = std::max(host_width, rank.host.size());
    cpu_width = std::max(cpu_width, rank.cpu_affinity.size());
    gpu_width = std::max(gpu_width, rank.gpu_name.size());
    bus_width = std::max(bus_width, rank.gpu_bus_id.size());
  }
  fmt::print("#{:>5} {:>5} {:>6}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<9}  {}\n", "rank", "node",
             "local", "host", host_width, "cpus", cpu_width, "gpu", gpu_width, "bus id", bus_width,
             "gpu peers", "network");
  for (const auto& rank : topology.ranks)
    fmt::print(" {:>5} {:>5} {:>6}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<9}  {}\n", rank.rank,
               rank.node_index, rank.local_rank, rank.host, host_width, or_dash(rank.cpu_affinity),
               cpu_width, or_dash(rank.gpu_name), gpu_width, or_dash(rank.gpu_bus_id), bus_width,
               or_dash(rank.gpu_peers), or_dash(rank.nic));
}

}  // namespace

int topo_command(const TopoOptions& options) {
  const JobStart job("topo");
  const std::string name = options.backend.empty() ? default_backend() : options.backend;
  require_built_backend(name);
  std::unique_ptr<Backend> backend;
  if (const int started = job.start_backend(name, BackendOptions{}, backend); started != kExitOk)
    return started;
  const JobTopology topology = discover_topology(backend->world(), backend->device());
  if (backend->world().rank() == kCoordinatorRank) print_table(topology, name);
  return kExitOk;
}

}  // namespace collbench
