// alltoall: block q of rank r's result is block r of rank q's buffer, each block one share (the
// exchange of expert-parallel layers and embedding tables). Its count is a block's, per peer, as
// ncclAlltoAll, MPI_Alltoall and nccl-tests take it.
#include "collectives/collective.h"

#include <string_view>

namespace collbench {
namespace {
// Pairwise exchange: p−1 steps, each sending one block to one peer and receiving one from another.
constexpr RankFamily kFamilies[] = {
    {.name = "pairwise", .latency_per_peer = 1, .bandwidth_per_share = 1},
};
// Bruck: log2(p) steps, each moving half the buffer.
constexpr RankFamily kLogDepth[] = {
    {.name = "bruck", .latency_per_doubling = 1, .bandwidth_per_doubling = 0.5},
};
constexpr std::string_view kAliases[] = {"all-to-all", "all_to_all"};
}  // namespace

template <>
const Collective& descriptor<CollectiveKind::alltoall>() {
  static constexpr Collective kAlltoall{
      .name = "alltoall",
      .aliases = kAliases,
      .send = Extent::buffer,
      .recv = Extent::buffer,
      .count = Extent::share,
      .outcome = Outcome::exchanged,
      .families = kFamilies,
      .log_depth = kLogDepth,
  };
  return kAlltoall;
}

}  // namespace collbench
