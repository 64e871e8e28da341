#pragma once
// Message sizes as nccl-tests users type them, and the sweep between two of them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// "8", "64K", "1M", "2G" (K, M, G are powers of 1024; a trailing B or iB is allowed).
// Throws std::invalid_argument naming the text when it is not a size.
std::size_t parse_size(std::string_view text);

// "8 B", "64 KiB", "1.5 MiB": for people, not for parsing back.
std::string format_size(std::size_t bytes);

struct SweepSpec {
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{64} << 20;
  double step_factor = 2;                  // multiplicative step, used unless step_bytes is set
  std::optional<std::size_t> step_bytes;   // additive step
};

// Throws std::invalid_argument for max < min, a factor <= 1 or a zero step.
std::vector<std::size_t> sweep_sizes(const SweepSpec& spec);

}  // namespace collbench
