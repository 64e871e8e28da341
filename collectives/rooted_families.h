#pragma once
// The algorithms of the collectives with a root, broadcast and reduce: one moves the root's
// buffer out to every rank, the other every rank's into the root, along the same paths.
#include "collectives/collective.h"

namespace collbench {

// Pipelined chain (NCCL's ring): the whole buffer passes every link once, in p−1 hops.
inline constexpr RankFamily kRootedFamilies[] = {
    {.name = "chain", .latency_per_peer = 1, .bandwidth_whole = 1},
};
// Binomial tree: log2(p) steps, each moving the whole buffer.
inline constexpr RankFamily kRootedLogDepth[] = {
    {.name = "binomial", .latency_per_doubling = 1, .bandwidth_per_doubling = 1},
};

}  // namespace collbench
