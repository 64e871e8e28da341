#pragma once
// The measured sizes nearest a size asked for, in log distance: what a prediction at one size is
// made from, since a protocol's regime spans a range of sizes by factors, not by bytes.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace collbench {

// Sizes under a byte count as one: the log of 0 would put everything equally far from it.
inline double log_size_distance(double a, double b) {
  return std::abs(std::log2(std::max(a, 1.0) / std::max(b, 1.0)));
}

// The `count` of `items` whose `size_of` is nearest `size_bytes`, nearest first, ties in the
// order given.
template <typename Item, typename SizeOf>
std::vector<Item> nearest_sizes(std::vector<Item> items, double size_bytes, std::size_t count,
                                SizeOf size_of) {
  std::ranges::stable_sort(items, {}, [&](const Item& item) {
    return log_size_distance(static_cast<double>(size_of(item)), size_bytes);
  });
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(std::min(count, items.size())),
              items.end());
  return items;
}

}  // namespace collbench
