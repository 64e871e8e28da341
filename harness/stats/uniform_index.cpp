#include "harness/stats/uniform_index.h"

#include <cstdint>

namespace collbench {

// Lemire's multiply-and-reject: exact, and without a division per draw (the bootstraps draw
// millions).
__extension__ using Wide = unsigned __int128;  // GCC and Clang; __extension__: no -Wpedantic

std::size_t uniform_index(std::mt19937_64& engine, std::size_t bound) {
  const std::uint64_t range = bound;
  Wide product = static_cast<Wide>(engine()) * range;
  auto low = static_cast<std::uint64_t>(product);
  if (low < range) {
    const std::uint64_t reject_below = (0 - range) % range;
    while (low < reject_below) {
      product = static_cast<Wide>(engine()) * range;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::size_t>(product >> 64);
}

double uniform_open(std::mt19937_64& engine) {
  return (static_cast<double>(engine() >> 11) + 0.5) * 0x1p-53;
}

}  // namespace collbench
