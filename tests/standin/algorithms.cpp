#include "algorithms.h"

#include <algorithm>
#include <sstream>
#include <vector>

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

bool floating(ncclDataType_t type) {
  return type == ncclFloat16 || type == ncclFloat32 || type == ncclFloat64 ||
         type == ncclBfloat16 || type == ncclFloat8e4m3 || type == ncclFloat8e5m2;
}

bool runs(const ncclComm& comm, const std::string& algorithm, const std::string& protocol,
          CollectiveKind kind, ncclDataType_t type, ncclRedOp_t op) {
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  const bool gathers = kind == CollectiveKind::all_gather;
  const bool scatters = kind == CollectiveKind::reduce_scatter;
  if (algorithm == "Ring") return true;
  if (algorithm == "Tree") return all_reduce;
  if (protocol != "Simple") return false;
  if (algorithm == "PAT")
    return comm.one_rank_per_node && (gathers || (scatters && !(op == ncclAvg && floating(type))));
  return false;  // NVLS and CollNet: hardware this machine does not have
}

}  // namespace

Choice choose(const ncclComm& comm, CollectiveKind kind, ncclDataType_t type, ncclRedOp_t op,
              std::size_t bytes) {
  constexpr std::size_t kSimpleFrom = std::size_t{64} << 10;
  // Unpinned, the size's protocol first, then any the algorithm runs.
  const std::vector<std::string> by_size{bytes < kSimpleFrom ? "LL" : "Simple", "LL128", "Simple"};
  const bool data = kind == CollectiveKind::all_reduce || kind == CollectiveKind::all_gather ||
                    kind == CollectiveKind::reduce_scatter;
  if (!data) return {"Ring", by_size.front()};
  for (const std::string& algorithm : pinned(comm.algorithm, {"Ring"}))
    for (const std::string& protocol :
         comm.protocol.empty() ? by_size : pinned(comm.protocol, kProtocols))
      if (runs(comm, algorithm, protocol, kind, type, op)) return {algorithm, protocol};
  return {};
}

}  // namespace standin
