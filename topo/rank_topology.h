#pragma once
// Where one rank of the job runs, as discovered at run time and kept in the result file.
#include <string>

namespace collbench {

struct RankTopology {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  int node_index = 0;
  std::string cpu_affinity;  // e.g. "0-3,8"
  std::string gpu_name;
  std::string gpu_bus_id;
  std::string gpu_peers;  // bus ids of the GPUs this one reaches directly (CUDA peer access)
  std::string nic;
  // Found at run time to judge the binding (topo/binding.h), not kept in the file: 0 unknown.
  int cores_spanned = 0;  // physical cores its CPU affinity covers
  int host_cores = 0;     // online physical cores of its host
};

}  // namespace collbench
