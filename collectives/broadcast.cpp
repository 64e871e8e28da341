// broadcast: every rank ends with the root's buffer.
#include "collectives/rooted_families.h"

#include <string_view>

namespace collbench {
namespace {
constexpr std::string_view kAliases[] = {"bcast"};
}  // namespace

template <>
const Collective& descriptor<CollectiveKind::broadcast>() {
  static constexpr Collective kBroadcast{
      .name = "broadcast",
      .aliases = kAliases,
      .send = Extent::buffer,
      .recv = Extent::buffer,
      .count = Extent::buffer,
      .outcome = Outcome::copied_from_root,
      // MPI broadcasts from the root's own buffer: its result is its input, no copy to check.
      .result_ranks = ResultRanks::all_but_root,
      .input_ranks = InputRanks::root,
      .families = kRootedFamilies,
      .log_depth = kRootedLogDepth,
  };
  return kBroadcast;
}

}  // namespace collbench
