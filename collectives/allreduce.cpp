// allreduce: every rank ends with the reduction of every rank's whole buffer.
#include "collectives/allreduce_families.h"

namespace collbench {

template <>
const Collective& descriptor<CollectiveKind::allreduce>() {
  static constexpr Collective kAllreduce{
      .name = "allreduce",
      .aliases = {},
      .send = Extent::buffer,
      .recv = Extent::buffer,
      .count = Extent::buffer,
      .outcome = Outcome::reduced,
      .families = kAllreduceFamilies,
      .log_depth = kAllreduceLogDepth,
  };
  return kAllreduce;
}

}  // namespace collbench
