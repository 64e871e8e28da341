#pragma once
// What a communication library chose for a collective, as its own instrumentation reports it
// (NCCL's profiler plugin): the algorithm, protocol and channel count behind a point's curve,
// which is where NCCL's crossovers (LL -> LL128 -> Simple, Tree -> Ring) show.
#include <array>
#include <cstdint>
#include <string_view>

namespace collbench {

struct LibraryChoice {
  // The library's own names (NCCL: RING, TREE, NVLS, PAT...; LL, LL128, SIMPLE); empty when it
  // did not say. Fixed arrays: the choice travels over the control plane as it is.
  std::array<char, 16> algorithm{};
  std::array<char, 16> protocol{};
  std::int32_t channels = 0;

  bool known() const { return algorithm[0] != '\0'; }
  bool operator==(const LibraryChoice&) const = default;
};

// Copies `text` into `field`, cut to fit with the terminating zero.
inline void store_choice_name(std::string_view text, std::array<char, 16>& field) {
  field.fill('\0');
  text.copy(field.data(), field.size() - 1);
}

inline std::string_view choice_name(const std::array<char, 16>& field) {
  return std::string_view(field.data());
}

}  // namespace collbench
