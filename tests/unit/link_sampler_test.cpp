#include "harness/links/link_sampler.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>
#include <vector>

#include "backends/ucx/ucp_worker.h"

namespace collbench {
namespace {

TEST(WindowMessages, FillFourMibWithAtMostSixtyFourMessages) {
  EXPECT_EQ(window_messages(LinkMode::latency, 8), 1);
  EXPECT_EQ(window_messages(LinkMode::bandwidth, 8), kMostWindowMessages);
  EXPECT_EQ(window_messages(LinkMode::bandwidth, 64 << 10), 64);
  EXPECT_EQ(window_messages(LinkMode::bidirectional, 256 << 10), 16);
  EXPECT_EQ(window_messages(LinkMode::bandwidth, 3 << 20), 2);
  EXPECT_EQ(window_messages(LinkMode::bandwidth, 64 << 20), 1);
}

// Two real UCX workers in two threads measure one link: each side returns the points it
// sourced, the two together every mode and size once (bandwidth once each way).
TEST(MeasureLink, BothEndsFollowOnePlanAndSourceEveryPointOnce) {
  LinkPlan plan;
  plan.sizes = {8, 4096, 1 << 20};
  plan.sampling.stopping.min_samples = 6;
  plan.sampling.stopping.max_time_s = 0.05;
  plan.sampling.warmup = 1;
  std::promise<std::vector<std::byte>> first_address, second_address;
  auto first_known = first_address.get_future().share();
  auto second_known = second_address.get_future().share();
  std::vector<LinkPoint> by_first, by_second;
  std::thread second([&] {
    ucx::UcpWorker worker;
    second_address.set_value(worker.address());
    worker.connect(0, first_known.get());
    by_second = measure_link(worker, 1, 0, false, plan);
  });
  {
    ucx::UcpWorker worker;
    first_address.set_value(worker.address());
    worker.connect(1, second_known.get());
    by_first = measure_link(worker, 0, 1, true, plan);
  }
  second.join();

  ASSERT_EQ(by_first.size(), 3u * 3u);  // latency, bandwidth 0 -> 1, bidirectional
  ASSERT_EQ(by_second.size(), 3u);      // bandwidth 1 -> 0
  for (const LinkPoint& point : by_first) {
    EXPECT_EQ(point.source_rank, 0);
    EXPECT_GE(point.samples_seconds.size(), 6u);
    EXPECT_EQ(point.summary.samples, point.samples_seconds.size());
    EXPECT_GT(point.summary.median, 0);
    EXPECT_EQ(point.messages_per_sample, window_messages(point.mode, point.size_bytes));
  }
  for (const LinkPoint& point : by_second) {
    EXPECT_EQ(point.source_rank, 1);
    EXPECT_EQ(point.destination_rank, 0);
    EXPECT_EQ(point.mode, LinkMode::bandwidth);
  }
}

}  // namespace
}  // namespace collbench
