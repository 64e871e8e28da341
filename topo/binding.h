#pragma once
// Whether the ranks sit the way a latency measurement needs: each bound to a core of its own and
// spinning. A rank free to move, two ranks on one core, or ranks that give the CPU away while they
// wait turn small-message latency and per-rank medians into the scheduler's noise.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "topo/rank_topology.h"

namespace collbench {

// The physical cores (package and core id, from sysfs) that the CPUs of `cpu_list` ("0-3,8")
// belong to; each CPU its own core where sysfs does not say. 0 for an empty or unreadable list.
int cores_spanned(std::string_view cpu_list, const std::filesystem::path& sys = "/sys");

// This host's online physical cores; 0 where sysfs does not say.
int online_cores(const std::filesystem::path& sys = "/sys");

struct BindingVerdict {
  bool unbound = false;         // some rank may run on more than one core
  bool shared = false;          // two bound ranks of a host on one core
  bool oversubscribed = false;  // more ranks on a host than it has cores
  bool yielding = false;        // ranks give the CPU away while they wait
  std::string summary;          // "one core a rank, spinning", or what is wrong (provenance)
  std::string warning;          // one line with the fix; empty when nothing is wrong
};

// From every rank's topology (its CPU list, the cores it spans and its host's) and whether the
// ranks yield when idle. Ranks whose cores are unknown (0) are not judged.
BindingVerdict judge_binding(std::span<const RankTopology> ranks, bool yielding);

}  // namespace collbench
