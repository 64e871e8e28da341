#include "harness/cli/command_guard.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "backends/communicator.h"
#include "harness/errors.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

struct Ending {
  int code;
  std::string printed;
};

// How `collbench fit` ends when its body does `body`: the exit code and what it printed.
template <typename Body>
Ending ending_of(Body body, bool may_print = true) {
  testing::internal::CaptureStderr();
  const int code = run_guarded("fit", may_print, body);
  return {code, testing::internal::GetCapturedStderr()};
}

TEST(CommandGuardTest, ACommandThatReturnsKeepsItsCodeAndPrintsNothing) {
  const Ending ending = ending_of([] { return kExitWrongOrFailed; });
  EXPECT_EQ(ending.code, kExitWrongOrFailed);
  EXPECT_EQ(ending.printed, "");
}

TEST(CommandGuardTest, BadUsageExits2WithEachLineAfterTheCommand) {
  const Ending ending =
      ending_of([]() -> int { throw UsageError("--links: x.h5\nsecond line\n"); });
  EXPECT_EQ(ending.code, kExitUsage);
  EXPECT_EQ(ending.printed, "collbench fit: --links: x.h5\ncollbench fit: second line\n");
}

TEST(CommandGuardTest, AnInvalidResultFileIsBadInput) {
  const Ending ending = ending_of([]() -> int { throw InvalidResultFile("x.h5: no such file"); });
  EXPECT_EQ(ending.code, kExitUsage);
  EXPECT_EQ(ending.printed, "collbench fit: x.h5: no such file\n");
}

TEST(CommandGuardTest, BadUsageIsPrintedByOneRankOnly) {
  const Ending ending = ending_of([]() -> int { throw UsageError("-b/--minbytes"); }, false);
  EXPECT_EQ(ending.code, kExitUsage);
  EXPECT_EQ(ending.printed, "");
}

TEST(CommandGuardTest, AFaultExits3AndEveryRankPrintsIt) {
  for (const bool may_print : {true, false}) {
    const Ending fault = ending_of([]() -> int { throw FaultError("writing p.h5 failed"); },
                                   may_print);
    EXPECT_EQ(fault.code, kExitFault);
    EXPECT_EQ(fault.printed, "collbench fit: writing p.h5 failed\n");
    const Ending held = ending_of([]() -> int { throw FileHeldOpen("x.h5 is open"); }, may_print);
    EXPECT_EQ(held.code, kExitFault);
    EXPECT_EQ(held.printed, "collbench fit: x.h5 is open\n");
  }
}

// The backends' errors end every command as `run` ends them: a damaged control message is a wrong
// result, a backend this host cannot run bad input, a library failure a fault.
TEST(CommandGuardTest, TheBackendsErrorsExitByTheirType) {
  const Ending corrupted =
      ending_of([]() -> int { throw ControlCorruption("a broadcast with a wrong checksum"); });
  EXPECT_EQ(corrupted.code, kExitWrongOrFailed);
  EXPECT_EQ(corrupted.printed, "collbench fit: a broadcast with a wrong checksum\n");
  const Ending unavailable =
      ending_of([]() -> int { throw BackendUnavailable("no GPU"); }, false);
  EXPECT_EQ(unavailable.code, kExitUsage);
  EXPECT_EQ(unavailable.printed, "");  // bad input: one rank says it
  const Ending fault = ending_of([]() -> int { throw CommunicationFault("NCCL error"); }, false);
  EXPECT_EQ(fault.code, kExitFault);
  EXPECT_EQ(fault.printed, "collbench fit: NCCL error\n");
}

TEST(CommandGuardTest, AnyOtherExceptionIsAnInternalErrorWithExit3) {
  const Ending std_error = ending_of([]() -> int { throw std::out_of_range("map::at\nkey 7"); });
  EXPECT_EQ(std_error.code, kExitFault);
  EXPECT_EQ(std_error.printed, "collbench fit: internal error: map::at\ncollbench fit: key 7\n");
  const Ending other = ending_of([]() -> int { throw 42; });
  EXPECT_EQ(other.code, kExitFault);
  EXPECT_EQ(other.printed,
            "collbench fit: internal error: an exception that is not a std::exception\n");
}

void fail_to_close() { throw std::runtime_error("H5Fclose failed"); }
// An exception out of a noexcept function calls std::terminate before any handler can see it.
void close_noexcept() noexcept { fail_to_close(); }

TEST(CommandGuardDeathTest, StdTerminateExits3AsAnInternalError) {
  EXPECT_EXIT(run_guarded("fit", true, [] { close_noexcept(); return 0; }),
              testing::ExitedWithCode(kExitFault),
              "collbench fit: internal error: H5Fclose failed");
}

}  // namespace
}  // namespace collbench
