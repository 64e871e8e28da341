#pragma once
// The algorithms of the collectives with a root. Broadcast and reduce move the whole buffer out
// of the root or into it, along the same paths; scatter and gather move one share to each rank
// or from it.
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

// Linear: the root sends a share to, or receives one from, each other rank in turn: p−1 steps,
// (p−1)/p of the buffer through its link (nccl-tests' gather.cu and scatter.cu count the same).
inline constexpr RankFamily kShareRootedFamilies[] = {
    {.name = "linear", .latency_per_peer = 1, .bandwidth_per_share = 1},
};
// Binomial tree: log2(p) steps, and still (p−1)/p of the buffer through the root's link, halved
// at each step (Chan et al., "Collective communication: theory, practice, and experience", 2007).
inline constexpr RankFamily kShareRootedLogDepth[] = {
    {.name = "binomial", .latency_per_doubling = 1, .bandwidth_per_share = 1},
};

}  // namespace collbench
