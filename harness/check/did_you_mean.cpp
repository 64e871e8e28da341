#include "did_you_mean.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace collbench {
namespace {

// Levenshtein distance, for "did you mean" on unknown keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string unknown_key(std::string_view key, std::span<const std::string_view> known) {
  std::string_view best;
  std::size_t best_distance = 3;  // suggest only near misses
  for (const auto candidate : known) {
    const auto distance = edit_distance(key, candidate);
    if (distance < best_distance) best = candidate, best_distance = distance;
  }
  return best.empty() ? fmt::format("unknown key '{}'", key)
                      : fmt::format("unknown key '{}' (did you mean '{}'?)", key, best);
}

}  // namespace collbench
