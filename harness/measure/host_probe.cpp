#include "harness/measure/host_probe.h"

#include <array>
#include <vector>

#include "harness/measure/fault_guard.h"
#include "harness/stats/summary.h"

namespace collbench {

std::vector<CopySamples> take_host_probe(Communicator& world, RunBuffers& buffers,
                                         ProbeMoment moment, HostProbe& probe) {
  CommunicationWait wait("probing the host's state (every rank copying memory)");
  const auto timer = world.make_timer();
  world.barrier();
  const std::vector<CopySamples> sizes = time_copies(world, *buffers.recv, *buffers.send, *timer);
  for (const CopySamples& size : sizes) {
    // Negated, so that the maximum over ranks is the slowest rank's rate.
    std::array<double, 1> slowest{size.gbps.empty() ? 0 : -summarize(size.gbps).median};
    world.max_over_ranks(slowest);
    probe.readings.push_back({moment, size.bytes, -slowest[0]});
  }
  return sizes;
}

}  // namespace collbench
