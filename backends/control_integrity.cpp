#include "backends/control_integrity.h"

#include <algorithm>
#include <cstring>

namespace collbench {
namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;
// Odd, with bits set in every byte, so that p * key is zero for no realistic p.
constexpr std::uint64_t kTwinKey = 0x5DEECE66D1B54A33ull;

}  // namespace

std::uint64_t checksum(std::span<const std::byte> data) {
  std::uint64_t hash = kFnvOffset;
  for (std::byte b : data) {
    hash ^= static_cast<std::uint64_t>(b);
    hash *= kFnvPrime;
  }
  return hash;
}

std::vector<std::byte> seal(std::span<const std::byte> data) {
  std::vector<std::byte> sealed(data.begin(), data.end());
  const std::uint64_t sum = checksum(data);
  const auto* sum_bytes = reinterpret_cast<const std::byte*>(&sum);
  sealed.insert(sealed.end(), sum_bytes, sum_bytes + kChecksumBytes);
  return sealed;
}

bool unseal(std::span<const std::byte> sealed, std::span<std::byte> data) {
  const auto body = sealed.first(data.size());
  std::uint64_t carried = 0;
  std::memcpy(&carried, sealed.data() + data.size(), kChecksumBytes);
  if (carried != checksum(body)) return false;
  std::copy(body.begin(), body.end(), data.begin());
  return true;
}

std::int64_t sum_twin(std::int64_t value) {
  return static_cast<std::int64_t>(kTwinKey - static_cast<std::uint64_t>(value));
}

bool sums_agree(std::int64_t total, std::int64_t twin_total, int ranks) {
  return static_cast<std::uint64_t>(total) + static_cast<std::uint64_t>(twin_total) ==
         static_cast<std::uint64_t>(ranks) * kTwinKey;
}

}  // namespace collbench
