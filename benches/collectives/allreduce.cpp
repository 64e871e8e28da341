// allreduce: every rank ends with the reduction of every rank's whole buffer.
#include "benches/collectives/allreduce_families.h"

namespace collbench {

extern constinit const Collective kAllreduce{
    .kind = CollectiveKind::allreduce,
    .name = "allreduce",
    .aliases = {},
    .send = Extent::buffer,
    .recv = Extent::buffer,
    .reduces = true,
    .families = kAllreduceFamilies,
    .log_depth = kAllreduceLogDepth,
};

}  // namespace collbench
