#include "harness/measure/steady_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace collbench {
namespace {

#if defined(__GLIBC__)
// A block the size of a large message, freed and taken again as a library's temporary buffer
// is on every call: mapped afresh by default (glibc's threshold is 128 KiB until a free raises
// it), from the heap and kept once the process keeps what it frees.
TEST(SteadyAllocator, LargeBlocksComeFromTheHeapAndStayThere) {
  constexpr std::size_t kBlock = 48u << 20;  // past the highest threshold glibc ever sets itself
  void* before = std::malloc(kBlock);
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(mallinfo2().hblks, 1u) << "glibc's default maps a block this large";
  std::free(before);

  keep_freed_memory();
  for (int call = 0; call < 3; ++call) {
    void* block = std::malloc(kBlock);
    ASSERT_NE(block, nullptr);
    std::memset(block, call, kBlock);
    EXPECT_EQ(mallinfo2().hblks, 0u) << "call " << call;
    std::free(block);
    EXPECT_GE(mallinfo2().arena, kBlock) << "the heap gave the block back, call " << call;
  }
  EXPECT_NE(allocator_policy().find("M_MMAP_MAX 0"), std::string_view::npos);
}
#endif

}  // namespace
}  // namespace collbench
