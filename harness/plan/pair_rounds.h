#pragma once
// The order in which `links` measures every pair of hosts (or ranks): rounds of disjoint pairs,
// so that a round measures each link while no other pair shares its endpoints, and the whole
// matrix takes O(p) rounds.
#include <vector>

namespace collbench {

struct Pair {
  int first;
  int second;
  bool operator==(const Pair&) const = default;
};

// A round-robin tournament among participants 0..p-1 (the circle method): every pair exactly
// once, no participant twice in a round; p - 1 rounds for even p, p for odd p, where each round
// one participant sits out. Throws std::invalid_argument for negative p.
std::vector<std::vector<Pair>> pair_rounds(int participants);

}  // namespace collbench
