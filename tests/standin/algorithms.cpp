#include "algorithms.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "datatypes.h"

namespace standin {
namespace {

const std::vector<std::string> kProtocols{"LL", "LL128", "Simple"};

std::vector<std::string> pinned(const std::string& setting, const std::vector<std::string>& all) {
  if (setting.empty()) return all;
  const bool excluding = setting[0] == '^';
  std::vector<std::string> listed;
  std::stringstream items(excluding ? setting.substr(1) : setting);
  for (std::string item; std::getline(items, item, ',');) listed.push_back(item);
  if (!excluding) return listed;
  std::vector<std::string> kept;
  for (const std::string& name : all)
    if (std::find(listed.begin(), listed.end(), name) == listed.end()) kept.push_back(name);
  return kept;
}

bool runs(const ncclComm& comm, const std::string& algorithm, const std::string& protocol,
          CollectiveKind kind, ncclRedOp_t op) {
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  const bool gathers = kind == CollectiveKind::all_gather;
  const bool scatters = kind == CollectiveKind::reduce_scatter;
  if (algorithm == "Ring") return true;
  if (algorithm == "Tree") return all_reduce;
  if (protocol != "Simple") return false;
  // PAT: one GPU a node (src/graph/tuning.cc, ncclPatEnable), and no reduce-scatter that scales:
  // avg is NCCL's pre-multiplied sum on floats and a sum divided after on integers
  // (src/enqueue.cc, hostToDevRedOp), both skipped for PAT (topoGetAlgoInfo).
  if (algorithm == "PAT") return comm.one_rank_per_node && (gathers || (scatters && op != ncclAvg));
  return false;  // NVLS and CollNet: hardware this machine does not have
}

}  // namespace

void read_pins(ncclComm& comm) {
  const char* algorithm = std::getenv("NCCL_ALGO");
  const char* protocol = std::getenv("NCCL_PROTO");
  comm.algorithms = pinned(algorithm ? algorithm : "", {"Ring"});
  if (protocol && *protocol) comm.protocols = pinned(protocol, kProtocols);
}

Choice choose(const ncclComm& comm, CollectiveKind kind, ncclRedOp_t op,
              std::size_t bytes) {
  constexpr std::size_t kSimpleFrom = std::size_t{64} << 10;
  // Unpinned, the size's protocol: LL, else one the algorithm runs; Simple, which all run.
  static const std::vector<std::string> kLarge{"Simple"};
  const std::vector<std::string>& by_size = bytes < kSimpleFrom ? kProtocols : kLarge;
  if (!is_data_collective(kind)) return {"Ring", by_size.front()};
  for (const std::string& algorithm : comm.algorithms)
    for (const std::string& protocol : comm.protocols.empty() ? by_size : comm.protocols)
      if (runs(comm, algorithm, protocol, kind, op)) return {algorithm, protocol};
  return {};
}

bool symmetric_kernel_runs(const ncclComm& comm, CollectiveKind kind, ncclDataType_t type,
                           ncclRedOp_t op, std::size_t bytes) {
  constexpr std::size_t kBusBytesLimit = std::size_t{64} << 30;
  // Single-node only: src/enqueue.cc, ncclMakeSymmetricTaskList and sym_kernels.cc.
  if (!comm.symmetric_support || !comm.one_node || bytes >= kBusBytesLimit) return false;
  // NCCL's avg of floating types is a pre-multiplied sum, which no symmetric kernel runs.
  const bool sums = op == ncclSum && is_floating(type) && type != ncclFloat64;
  return kind == CollectiveKind::all_gather ||
         ((kind == CollectiveKind::all_reduce || kind == CollectiveKind::reduce_scatter) && sums);
}

}  // namespace standin
