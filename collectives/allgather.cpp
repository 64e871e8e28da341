// allgather: every rank ends with every rank's share, in rank order.
#include "collectives/collective.h"

namespace collbench {
namespace {
// Ring: p−1 steps, each passing one share on.
constexpr RankFamily kFamilies[] = {
    {.name = "ring", .latency_per_peer = 1, .bandwidth_per_share = 1},
};
// Recursive doubling (Bruck where p is not a power of two): log2(p) steps, the ring's traffic.
constexpr RankFamily kLogDepth[] = {
    {.name = "recursive_doubling", .latency_per_doubling = 1, .bandwidth_per_share = 1},
};
}  // namespace

template <>
const Collective& descriptor<CollectiveKind::allgather>() {
  static constexpr Collective kAllgather{
      .name = "allgather",
      .aliases = {},
      .send = Extent::share,
      .recv = Extent::buffer,
      .count = Extent::share,
      .outcome = Outcome::gathered,
      .families = kFamilies,
      .log_depth = kLogDepth,
  };
  return kAllgather;
}

}  // namespace collbench
