#pragma once
// Redundancy for control-plane messages, so that a fabric or library that corrupts them is
// reported instead of obeyed: every message travels with a checksum, and every sum is reduced a
// second time over values that a corruption of the first cannot match.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace collbench {

inline constexpr std::size_t kChecksumBytes = sizeof(std::uint64_t);

// FNV-1a, 64 bits: each step is a bijection of the state, so any one changed byte changes it.
std::uint64_t checksum(std::span<const std::byte> data);

// The data followed by its checksum (data.size() + kChecksumBytes bytes).
std::vector<std::byte> seal(std::span<const std::byte> data);
// Copies a sealed message's data out; false, leaving `data` untouched, when the checksum does not
// match.
bool unseal(std::span<const std::byte> sealed, std::span<std::byte> data);

// A sum's twin: each rank contributes twin(v) next to v, and over p ranks the two totals add up
// to p times a fixed key (mod 2^64). A zeroed or flipped byte in either total breaks that.
std::int64_t sum_twin(std::int64_t value);
bool sums_agree(std::int64_t total, std::int64_t twin_total, int ranks);

}  // namespace collbench
