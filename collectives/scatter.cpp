// scatter: rank q ends with share q of the root's buffer (ncclScatter, MPI_Scatter). Its count
// is a share's, as nccl-tests' scatter.cu passes it; the size reported is the root's buffer.
#include "collectives/rooted_families.h"

namespace collbench {

template <>
const Collective& descriptor<CollectiveKind::scatter>() {
  static constexpr Collective kScatter{
      .name = "scatter",
      .aliases = {},
      .send = Extent::buffer,
      .recv = Extent::share,
      .count = Extent::share,
      .outcome = Outcome::copied_from_root,
      .input_ranks = InputRanks::root,
      .families = kShareRootedFamilies,
      .log_depth = kShareRootedLogDepth,
  };
  return kScatter;
}

}  // namespace collbench
