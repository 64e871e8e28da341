#include "harness/plan/pair_rounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace collbench {

std::vector<std::vector<Pair>> pair_rounds(int participants) {
  if (participants < 0)
    throw std::invalid_argument(fmt::format("pair rounds: {} participants", participants));
  if (participants < 2) return {};
  // With an odd count, a phantom participant makes it even; whoever meets it sits out.
  const int seats = participants + participants % 2;
  std::vector<int> circle(seats);
  std::iota(circle.begin(), circle.end(), 0);
  std::vector<std::vector<Pair>> rounds;
  for (int round = 0; round + 1 < seats; ++round) {
    std::vector<Pair>& pairs = rounds.emplace_back();
    for (int seat = 0; seat < seats / 2; ++seat) {
      const int a = circle[seat];
      const int b = circle[seats - 1 - seat];
      if (a < participants && b < participants) pairs.push_back({std::min(a, b), std::max(a, b)});
    }
    // Participant 0 keeps its seat; everyone else moves one seat round the circle.
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

}  // namespace collbench
