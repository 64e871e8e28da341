// The fault guard in a child process each (GoogleTest's death tests): the watchdog ends a wait
// past its limit with exit 3, naming the rank, the wait and the point, after the abort hook;
// not without a wait, nor under the default limit's floor of 100 slowest samples; a signal
// during a file write waits for the write.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "harness/measure/fault_guard.h"

namespace collbench {
namespace {

using namespace std::chrono_literals;

class FaultGuardTest : public ::testing::Test {
 protected:
  // The watchdog is a thread; a child forked from a process with threads must start afresh.
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

constexpr Watchdog kChosenLimit{.timeout_s = 0.2, .grows_with_samples = false};

TEST_F(FaultGuardTest, AWaitPastTheLimitEndsWithExit3NamingItAfterTheAbortHook) {
  EXPECT_EXIT(
      {
        install_fault_guard("rank 1 on node07", kChosenLimit);
        set_fault_abort_hook([] { std::fputs("communicators aborted\n", stderr); });
        set_fault_context("allreduce float sum 8 B");
        CommunicationWait wait("waiting for a peer");
        std::this_thread::sleep_for(5s);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(3),
      "rank 1 on node07: timeout: no progress for 0 s \\(-T\\) in waiting for a peer at "
      "allreduce float sum 8 B; .*communicators aborted");
}

TEST_F(FaultGuardTest, NoWaitIsNoTimeout) {
  EXPECT_EXIT(
      {
        install_fault_guard("rank 0 on node07", kChosenLimit);
        { CommunicationWait wait("a wait that ends in time"); }
        std::this_thread::sleep_for(600ms);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(FaultGuardTest, TheDefaultLimitIsNeverUnderAHundredOfTheSlowestSamples) {
  EXPECT_EXIT(
      {
        install_fault_guard("rank 0 on node07", {.timeout_s = 0.2, .grows_with_samples = true});
        note_sample_seconds(0.01);  // the limit is 1 s now
        CommunicationWait wait("a long loop");
        std::this_thread::sleep_for(500ms);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(FaultGuardTest, ASignalDuringAFileWriteEndsTheProcessOnceTheWriteIsDone) {
  EXPECT_EXIT(
      {
        install_fault_guard("rank 0 on node07", {.timeout_s = 0});
        {
          FileWriteSection section;
          std::raise(SIGTERM);
          std::fputs("the write finished\n", stderr);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(3),
      "the write finished\ncollbench: rank 0 on node07: terminated \\(SIGTERM\\); every "
      "finished point is in the result file");
}

}  // namespace
}  // namespace collbench
