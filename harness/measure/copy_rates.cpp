#include "harness/measure/copy_rates.h"

#include <algorithm>

namespace collbench {
namespace {

constexpr std::size_t kSmallestCopyBytes = std::size_t{4} << 10;
constexpr std::size_t kBytesPerSample = std::size_t{4} << 20;  // each sample copies this, or one
constexpr int kMaxCopiesPerSample = 1024;
constexpr int kCopySamples = 5;

}  // namespace

std::vector<CopySamples> time_copies(Communicator& world, Buffer& to, const Buffer& from,
                                     Timer& timer) {
  const std::size_t largest = std::min(to.bytes(), from.bytes());
  std::vector<CopySamples> sizes;
  for (std::size_t bytes = std::min(kSmallestCopyBytes, largest); bytes > 0;
       bytes = bytes == largest ? 0 : std::min(bytes * 4, largest)) {
    const int copies =
        static_cast<int>(std::clamp<std::size_t>(kBytesPerSample / bytes, 1, kMaxCopiesPerSample));
    CopySamples& size = sizes.emplace_back(CopySamples{bytes, {}});
    for (int sample = 0; sample < kCopySamples; ++sample) {
      timer.start();
      for (int i = 0; i < copies; ++i) world.copy(to, from, bytes);
      const double seconds = timer.stop_seconds();
      if (seconds > 0) size.gbps.push_back(static_cast<double>(bytes) * copies / seconds / 1e9);
    }
  }
  return sizes;
}

}  // namespace collbench
