// sendrecv: each rank sends its buffer to rank r+1 and receives rank r−1's (mod p), as nccl-tests'
// sendrecv.cu: the exchange between the stages of pipeline parallelism. One step at any rank
// count, so no textbook family of p: fitted in message size only, its bus bandwidth its
// algorithm bandwidth.
#include "collectives/collective.h"

#include <string_view>

namespace collbench {
namespace {
constexpr std::string_view kAliases[] = {"send_recv"};
}  // namespace

template <>
const Collective& descriptor<CollectiveKind::sendrecv>() {
  static constexpr Collective kSendrecv{
      .name = "sendrecv",
      .aliases = kAliases,
      .send = Extent::buffer,
      .recv = Extent::buffer,
      .count = Extent::buffer,
      .outcome = Outcome::shifted,
      .families = {},
      .log_depth = {},
  };
  return kSendrecv;
}

}  // namespace collbench
