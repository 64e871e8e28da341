// The profiler plugin built into the NCCL backend, called the way NCCL 2.28 calls it: found by
// dlsym in the executable (NCCL_PROFILER_PLUGIN=STATIC_PLUGIN), initialised per communicator,
// handed a descriptor per collective launch. Runs without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "backends/nccl/choice_recorder.h"
#include "backends/nccl/profiler_abi.h"

namespace collbench::nccl {
namespace {

using namespace profiler_abi;

// NCCL 2.28.9's ncclProfilerEventDescr_v5_t and its coll member, field by field.
static_assert(offsetof(EventDescriptor, rank) == 16);
static_assert(offsetof(EventDescriptor, collective) == 24);
static_assert(offsetof(CollectiveEvent, count) == 32);
static_assert(offsetof(CollectiveEvent, datatype) == 48);
static_assert(offsetof(CollectiveEvent, channels) == 56);
static_assert(offsetof(CollectiveEvent, algorithm) == 64);
static_assert(offsetof(CollectiveEvent, protocol) == 72);
static_assert(sizeof(ProfilerV5) == 6 * sizeof(void*));

// What NCCL does with STATIC_PLUGIN: dlopen(nullptr), then dlsym of the versioned name.
const ProfilerV5& plugin() {
  void* self = dlopen(nullptr, RTLD_NOW | RTLD_LOCAL);
  const auto* found = static_cast<const ProfilerV5*>(dlsym(self, "ncclProfiler_v5"));
  if (!found) throw std::runtime_error("ncclProfiler_v5 is not exported by the executable");
  return *found;
}

class ChoiceRecorder : public ::testing::Test {
 protected:
  void SetUp() override {
    int mask = 0;
    ASSERT_EQ(plugin().init(&context_, 7, &mask, "test", 2, 4, 0, nullptr), kSuccess);
    EXPECT_EQ(mask, static_cast<int>(kCollectiveEvent)) << "only collective events are wanted";
    EXPECT_NE(context_, nullptr);
    take_choice(nullptr, 0, 0);  // forget what earlier tests recorded
  }
  void TearDown() override { EXPECT_EQ(plugin().finalize(context_), kSuccess); }

  // One launch as NCCL reports it, from `send` with `count` elements.
  void launch(const void* send, std::size_t count, const char* algorithm, const char* protocol,
              int channels, std::uint64_t type = kCollectiveEvent) {
    EventDescriptor descriptor{};
    descriptor.type = type;
    descriptor.collective.send_buffer = send;
    descriptor.collective.count = count;
    descriptor.collective.algorithm = algorithm;
    descriptor.collective.protocol = protocol;
    descriptor.collective.channels = static_cast<std::uint8_t>(channels);
    void* handle = &descriptor;
    ASSERT_EQ(plugin().start_event(context_, &handle, &descriptor), kSuccess);
    EXPECT_EQ(handle, nullptr) << "no handle: NCCL must not stop or update the event";
  }

  void* context_ = nullptr;
  std::vector<std::byte> buffer_ = std::vector<std::byte>(4096);
};

TEST_F(ChoiceRecorder, NamesItselfAndCountsCommunicators) {
  EXPECT_STREQ(plugin().name, "collbench");
  const int before = profiled_communicators();
  void* another = nullptr;
  int mask = 0;
  ASSERT_EQ(plugin().init(&another, 8, &mask, "other", 1, 1, 0, nullptr), kSuccess);
  EXPECT_EQ(profiled_communicators(), before + 1);
}

TEST_F(ChoiceRecorder, ReportsTheChoiceOfTheLaunchesFromTheBuffer) {
  launch(buffer_.data(), 256, "RING", "LL", 4);
  launch(buffer_.data(), 256, "RING", "LL", 4);
  const LibraryChoice choice = take_choice(buffer_.data(), buffer_.size(), 256);
  EXPECT_EQ(choice_name(choice.algorithm), "RING");
  EXPECT_EQ(choice_name(choice.protocol), "LL");
  EXPECT_EQ(choice.channels, 4);
}

TEST_F(ChoiceRecorder, TheMostFrequentChoiceWins) {
  launch(buffer_.data(), 256, "RING", "SIMPLE", 2);
  for (int i = 0; i < 3; ++i) launch(buffer_.data() + 1024, 256, "TREE", "LL128", 8);
  const LibraryChoice choice = take_choice(buffer_.data(), buffer_.size(), 256);
  EXPECT_EQ(choice_name(choice.algorithm), "TREE");
  EXPECT_EQ(choice_name(choice.protocol), "LL128");
  EXPECT_EQ(choice.channels, 8);
}

TEST_F(ChoiceRecorder, IgnoresOtherBuffersCountsAndEventTypes) {
  std::vector<std::byte> control(64);
  for (int i = 0; i < 5; ++i) launch(control.data(), 256, "RING", "SIMPLE", 1);  // elsewhere
  launch(buffer_.data() + buffer_.size(), 256, "RING", "SIMPLE", 1);          // one past the end
  launch(buffer_.data(), 512, "RING", "SIMPLE", 1);                           // another count
  launch(buffer_.data(), 256, "TREE", "LL", 1, /*point to point*/ 1u << 2);
  EXPECT_FALSE(take_choice(buffer_.data(), buffer_.size(), 256).known());
}

TEST_F(ChoiceRecorder, ATakeForgetsEverything) {
  launch(buffer_.data(), 256, "RING", "LL", 4);
  EXPECT_TRUE(take_choice(buffer_.data(), buffer_.size(), 256).known());
  EXPECT_FALSE(take_choice(buffer_.data(), buffer_.size(), 256).known());
}

TEST_F(ChoiceRecorder, LongNamesAreCutToTheField) {
  launch(buffer_.data(), 1, "AN_ALGORITHM_NAME_TOO_LONG", "SIMPLE", 1);
  const LibraryChoice choice = take_choice(buffer_.data(), buffer_.size(), 1);
  EXPECT_EQ(choice_name(choice.algorithm), "AN_ALGORITHM_NA");
}

}  // namespace
}  // namespace collbench::nccl
