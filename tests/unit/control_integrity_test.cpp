#include "backends/control_integrity.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace collbench {
namespace {

std::vector<std::byte> message(std::size_t size) {
  std::vector<std::byte> data(size);
  for (std::size_t i = 0; i < size; ++i) data[i] = std::byte(i * 37 + 11);
  return data;
}

TEST(ControlIntegrity, ASealedMessageOpensIntact) {
  const auto data = message(24);
  const auto sealed = seal(data);
  ASSERT_EQ(sealed.size(), data.size() + kChecksumBytes);
  std::vector<std::byte> opened(data.size());
  ASSERT_TRUE(unseal(sealed, opened));
  EXPECT_EQ(opened, data);
}

// Every single flipped byte, in the data or in the checksum, at every position and for every
// flip pattern, is caught.
TEST(ControlIntegrity, EveryOneByteCorruptionIsCaught) {
  const auto data = message(16);
  const auto sealed = seal(data);
  std::vector<std::byte> opened(data.size(), std::byte{0});
  for (std::size_t at = 0; at < sealed.size(); ++at)
    for (int pattern = 1; pattern < 256; ++pattern) {
      auto damaged = sealed;
      damaged[at] ^= std::byte(pattern);
      ASSERT_FALSE(unseal(damaged, opened)) << at << " " << pattern;
    }
  EXPECT_EQ(opened, std::vector<std::byte>(data.size(), std::byte{0}));  // untouched on failure
}

TEST(ControlIntegrity, SumsAgreeWithTheirTwinsOnlyWhenIntact) {
  const std::array<std::int64_t, 3> values{5, -7, 1LL << 40};
  std::int64_t total = 0, twins = 0;
  for (auto v : values) {
    total += v;
    twins = static_cast<std::int64_t>(static_cast<std::uint64_t>(twins) +
                                      static_cast<std::uint64_t>(sum_twin(v)));
  }
  EXPECT_TRUE(sums_agree(total, twins, 3));
  EXPECT_FALSE(sums_agree(total, twins, 2));
  for (int byte = 0; byte < 8; ++byte) {
    std::int64_t damaged = total;
    reinterpret_cast<unsigned char*>(&damaged)[byte] ^= 0x5A;
    EXPECT_FALSE(sums_agree(damaged, twins, 3)) << byte;
    damaged = twins;
    reinterpret_cast<unsigned char*>(&damaged)[byte] ^= 0x01;
    EXPECT_FALSE(sums_agree(total, damaged, 3)) << byte;
  }
  EXPECT_FALSE(sums_agree(0, 0, 3));  // a zeroed result
}

}  // namespace
}  // namespace collbench
