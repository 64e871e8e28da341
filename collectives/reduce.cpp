// reduce: the root ends with the reduction of every rank's whole buffer.
#include "collectives/rooted_families.h"

namespace collbench {

template <>
const Collective& descriptor<CollectiveKind::reduce>() {
  static constexpr Collective kReduce{
      .name = "reduce",
      .aliases = {},
      .send = Extent::buffer,
      .recv = Extent::buffer,
      .count = Extent::buffer,
      .outcome = Outcome::reduced,
      .result_ranks = ResultRanks::root,
      .families = kRootedFamilies,
      .log_depth = kRootedLogDepth,
  };
  return kReduce;
}

}  // namespace collbench
