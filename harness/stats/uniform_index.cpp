#include "harness/stats/uniform_index.h"

#include <cstdint>
#include <limits>

namespace collbench {

std::size_t uniform_index(std::mt19937_64& engine, std::size_t bound) {
  const std::uint64_t range = bound;
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = engine();
  while (draw >= limit) draw = engine();
  return static_cast<std::size_t>(draw % range);
}

}  // namespace collbench
