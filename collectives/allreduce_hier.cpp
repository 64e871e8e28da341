// allreduce_hier: allreduce composed from sub-communicators, as hierarchical implementations
// (Horovod's, NCCL's inter-node trees) do: a reduce-scatter inside each node, an allreduce of each
// share across nodes on the ranks of one local index (one rail), an allgather inside each node
// (backends/hierarchical_communicator.h). The result is the allreduce's, so it is
// validated, sized, counted and fitted like it (its families are the allreduce's, each level
// a ring or a tree), and its bus bandwidth compares with the flat one's.
#include <string_view>

#include "collectives/allreduce_families.h"

namespace collbench {
namespace {
constexpr std::string_view kAliases[] = {"allreduce-hier", "hier"};
}  // namespace

template <>
const Collective& descriptor<CollectiveKind::allreduce_hier>() {
  static constexpr Collective kAllreduceHier{
      .name = "allreduce_hier",
      .aliases = kAliases,
      .send = Extent::buffer,
      .recv = Extent::buffer,
      .count = Extent::buffer,
      .outcome = Outcome::reduced,
      .families = kAllreduceFamilies,
      .log_depth = kAllreduceLogDepth,
      .cut_into_shares = true,
      .composed_across_nodes = true,
  };
  return kAllreduceHier;
}

}  // namespace collbench
