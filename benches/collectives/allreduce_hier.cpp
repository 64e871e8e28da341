// allreduce_hier: allreduce composed from sub-communicators, as hierarchical implementations
// (Horovod's, NCCL's inter-node trees) do: a reduce-scatter inside each node, an allreduce of each
// share across nodes on the ranks of one local index (one rail), an allgather inside each node
// (benches/backends/hierarchical_communicator.h). The result is the allreduce's, so it is
// validated, sized, counted and fitted like it (its families are the allreduce's, each level
// a ring or a tree), and its bus bandwidth compares with the flat one's.
#include <string_view>

#include "benches/collectives/allreduce_families.h"

namespace collbench {
namespace {
constexpr std::string_view kAliases[] = {"allreduce-hier", "hier"};
}  // namespace

extern constinit const Collective kAllreduceHier{
    .kind = CollectiveKind::allreduce_hier,
    .name = "allreduce_hier",
    .aliases = kAliases,
    .send = Extent::buffer,
    .recv = Extent::buffer,
    .reduces = true,
    .families = kAllreduceFamilies,
    .log_depth = kAllreduceLogDepth,
    .cut_into_shares = true,
};

}  // namespace collbench
