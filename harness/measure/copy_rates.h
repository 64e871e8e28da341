#pragma once
// How fast this rank copies memory, every rank copying at once, through the run's buffers with
// the backend's own copy (a memcpy on a host, a device-to-device copy on a GPU): each size from
// one that fits the caches up to the largest buffer, by 4, a few samples each. What the
// host-state probe is made of, and from the start's samples the plausibility bound.
#include <cstddef>
#include <vector>

#include "backends/communicator.h"

namespace collbench {

struct CopySamples {
  std::size_t bytes = 0;
  std::vector<double> gbps;  // one rate per sample
};

// Collective over `world` only in that every rank calls it with buffers of the same sizes;
// the caller's barrier lines the ranks up.
std::vector<CopySamples> time_copies(Communicator& world, Buffer& to, const Buffer& from,
                                     Timer& timer);

}  // namespace collbench
