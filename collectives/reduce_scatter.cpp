// reduce_scatter: rank r ends with share r of the reduction of every rank's whole buffer.
#include "collectives/collective.h"

#include <string_view>

namespace collbench {
namespace {
// Ring: p−1 steps, each reducing one share into the next rank's.
constexpr RankFamily kFamilies[] = {
    {.name = "ring", .latency_per_peer = 1, .bandwidth_per_share = 1},
};
// Recursive halving: log2(p) steps, the ring's traffic.
constexpr RankFamily kLogDepth[] = {
    {.name = "recursive_halving", .latency_per_doubling = 1, .bandwidth_per_share = 1},
};
constexpr std::string_view kAliases[] = {"reduce-scatter", "reducescatter"};
}  // namespace

template <>
const Collective& descriptor<CollectiveKind::reduce_scatter>() {
  static constexpr Collective kReduceScatter{
      .name = "reduce_scatter",
      .aliases = kAliases,
      .send = Extent::buffer,
      .recv = Extent::share,
      .count = Extent::share,
      .outcome = Outcome::reduced,
      .families = kFamilies,
      .log_depth = kLogDepth,
  };
  return kReduceScatter;
}

}  // namespace collbench
