// gather: the root ends with every rank's share, in rank order (ncclGather, MPI_Gather). Its
// count is a share's, as nccl-tests' gather.cu passes it; the size reported is the root's buffer.
#include "collectives/rooted_families.h"

namespace collbench {

template <>
const Collective& descriptor<CollectiveKind::gather>() {
  static constexpr Collective kGather{
      .name = "gather",
      .aliases = {},
      .send = Extent::share,
      .recv = Extent::buffer,
      .count = Extent::share,
      .outcome = Outcome::gathered,
      .result_ranks = ResultRanks::root,
      .families = kShareRootedFamilies,
      .log_depth = kShareRootedLogDepth,
  };
  return kGather;
}

}  // namespace collbench
