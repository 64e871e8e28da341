#pragma once
// The allreduce's algorithms, shared by the flat allreduce and the one composed across nodes,
// whose result, traffic and fits are the allreduce's.
#include "collectives/collective.h"

namespace collbench {

// Ring: reduce-scatter then allgather, 2(p−1) steps of n/p. Tree: a reduce up and a broadcast
// down a binary tree, 2·log2(p) steps of the whole buffer.
inline constexpr RankFamily kAllreduceFamilies[] = {
    {.name = "ring", .latency_per_peer = 2, .bandwidth_per_share = 2},
    {.name = "tree", .latency_per_doubling = 2, .bandwidth_whole = 2},
};
// Recursive doubling: log2(p) exchanges of the whole buffer. Rabenseifner: a reduce-scatter by
// recursive halving then an allgather by recursive doubling, the ring's traffic in 2·log2(p) steps.
inline constexpr RankFamily kAllreduceLogDepth[] = {
    {.name = "recursive_doubling", .latency_per_doubling = 1, .bandwidth_per_doubling = 1},
    {.name = "rabenseifner", .latency_per_doubling = 2, .bandwidth_per_share = 2},
};

}  // namespace collbench
