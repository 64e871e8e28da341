#include "topo/binding.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace collbench {
namespace {

std::set<int> parse_cpu_list(std::string_view list) {
  std::set<int> cpus;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string item(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    int first = 0, last = 0;
    const int read = std::sscanf(item.c_str(), "%d-%d", &first, &last);
    if (read < 1 || first < 0) return {};
    if (read == 1) last = first;
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return cpus;
}

std::string read_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

int distinct_cores(const std::set<int>& cpus, const std::filesystem::path& sys) {
  std::set<std::pair<std::string, std::string>> cores;
  for (const int cpu : cpus) {
    const auto topology = sys / fmt::format("devices/system/cpu/cpu{}/topology", cpu);
    const std::string package = read_line(topology / "physical_package_id");
    const std::string core = read_line(topology / "core_id");
    cores.emplace(package, core.empty() ? fmt::format("cpu{}", cpu) : core);
  }
  return static_cast<int>(cores.size());
}

bool overlap(const std::set<int>& a, const std::set<int>& b) {
  for (const int cpu : a)
    if (b.contains(cpu)) return true;
  return false;
}

}  // namespace

int cores_spanned(std::string_view cpu_list, const std::filesystem::path& sys) {
  return distinct_cores(parse_cpu_list(cpu_list), sys);
}

int online_cores(const std::filesystem::path& sys) {
  return cores_spanned(read_line(sys / "devices/system/cpu/online"), sys);
}

BindingVerdict judge_binding(std::span<const RankTopology> ranks, bool yielding) {
  BindingVerdict verdict;
  std::vector<int> unbound;
  std::vector<std::string> shared, crowded;
  std::map<std::string, std::vector<const RankTopology*>> by_host;
  for (const RankTopology& rank : ranks) {
    by_host[rank.host].push_back(&rank);
    if (rank.cores_spanned > 1) unbound.push_back(rank.rank);
  }
  for (const auto& [host, on_host] : by_host) {
    const int cores = on_host.front()->host_cores;
    if (cores > 0 && static_cast<int>(on_host.size()) > cores)
      crowded.push_back(fmt::format("{} ranks on the {} cores of {}", on_host.size(), cores, host));
    for (std::size_t i = 0; i < on_host.size() && shared.empty(); ++i)
      for (std::size_t j = i + 1; j < on_host.size() && shared.empty(); ++j) {
        const RankTopology& a = *on_host[i];
        const RankTopology& b = *on_host[j];
        if (a.cores_spanned == 1 && b.cores_spanned == 1 &&
            overlap(parse_cpu_list(a.cpu_affinity), parse_cpu_list(b.cpu_affinity)))
          shared.push_back(fmt::format("ranks {} and {} share a core on {}", a.rank, b.rank, host));
      }
  }
  verdict.unbound = !unbound.empty();
  verdict.shared = !shared.empty();
  verdict.oversubscribed = !crowded.empty();
  verdict.yielding = yielding;

  std::vector<std::string> problems, fixes;
  if (verdict.oversubscribed) {
    problems.push_back(fmt::format("oversubscribed ({})", fmt::join(crowded, ", ")));
    fixes.push_back("start at most one rank a core");
  }
  if (verdict.unbound) {
    problems.push_back(
        unbound.size() == ranks.size()
            ? std::string("ranks are not bound to cores")
            : fmt::format("ranks {} are not bound to cores", fmt::join(unbound, ",")));
    if (!verdict.oversubscribed) fixes.push_back("add --bind-to core (srun: --cpu-bind=cores)");
  }
  if (verdict.shared) {
    problems.push_back(shared.front());
    if (!verdict.oversubscribed) fixes.push_back("bind one rank a core");
  }
  if (verdict.yielding) {
    problems.push_back("ranks yield the CPU while they wait (mpi_yield_when_idle)");
    if (!verdict.oversubscribed) fixes.push_back("drop --mca mpi_yield_when_idle");
  } else if (verdict.oversubscribed) {
    problems.push_back("spinning ranks share cores and starve each other");
    fixes.push_back("or add --mca mpi_yield_when_idle 1");
  }
  if (problems.empty()) {
    verdict.summary = "one core a rank, spinning";
    return verdict;
  }
  verdict.summary = fmt::format("{}", fmt::join(problems, "; "));
  verdict.warning = fmt::format("{}: small-message latency and per-rank medians will mislead; {}",
                                verdict.summary, fmt::join(fixes, ", "));
  return verdict;
}

}  // namespace collbench
