#include "harness/launch/local_launcher.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace collbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The children write here; it is passed to them as TEST_DIR.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "local_launcher_test.XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets or unsets variables for one test and restores what was there before.
class ScopedEnvironment {
 public:
  void set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = std::getenv(name.c_str());
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    if (value)
      setenv(name.c_str(), value->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

LocalLaunch shell_ranks(int nranks, const std::string& script, const TempDir& dir) {
  LocalLaunch launch;
  launch.executable = "/bin/sh";
  launch.arguments = {"sh", "-c", script};
  launch.nranks = nranks;
  launch.environment = {{"TEST_DIR", dir.path().string()}};
  return launch;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const double kGraceSeconds = static_cast<double>(kRankTerminationGrace.count());

TEST(RunLocalRanks, EveryRankRunsOnceWithItsRankVariables) {
  TempDir dir;
  const auto launch = shell_ranks(
      4,
      R"(echo "$COLLBENCH_RANK $COLLBENCH_NRANKS $COLLBENCH_LOCAL_RANK $COLLBENCH_LOCAL_SIZE" )"
      R"(>> "$TEST_DIR/rank-$COLLBENCH_RANK")",
      dir);
  EXPECT_EQ(run_local_ranks(launch), 0);

  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    files.insert(entry.path().filename().string());
  EXPECT_EQ(files, (std::set<std::string>{"rank-0", "rank-1", "rank-2", "rank-3"}));
  for (int rank = 0; rank < 4; ++rank)
    EXPECT_EQ(read_file(dir.path() / ("rank-" + std::to_string(rank))),
              std::to_string(rank) + " 4 " + std::to_string(rank) + " 4\n");
}

TEST(RunLocalRanks, LaunchEnvironmentReachesEveryRankAndOverridesTheParents) {
  TempDir dir;
  ScopedEnvironment env;
  env.set("COLLBENCH_TEST_OVERRIDDEN", "from parent");
  env.set("COLLBENCH_TEST_INHERITED", "inherited");
  auto launch = shell_ranks(
      2,
      R"(printf '%s|%s|%s' "$COLLBENCH_TEST_VALUE" "$COLLBENCH_TEST_OVERRIDDEN" )"
      R"("$COLLBENCH_TEST_INHERITED" > "$TEST_DIR/$COLLBENCH_RANK")",
      dir);
  launch.environment["COLLBENCH_TEST_VALUE"] = "a=b c";
  launch.environment["COLLBENCH_TEST_OVERRIDDEN"] = "from launch";
  EXPECT_EQ(run_local_ranks(launch), 0);
  for (const char* rank : {"0", "1"})
    EXPECT_EQ(read_file(dir.path() / rank), "a=b c|from launch|inherited") << "rank " << rank;
}

constexpr const char* kWriteNcclVariables =
    R"(echo "${NCCL_HOSTID-unset} ${NCCL_SOCKET_IFNAME-unset}" > "$TEST_DIR/$COLLBENCH_RANK")";

TEST(RunLocalRanks, VirtualNodesGiveEachRankItsOwnHostOverLoopback) {
  TempDir dir;
  ScopedEnvironment env;
  env.set("NCCL_SOCKET_IFNAME", std::nullopt);
  auto launch = shell_ranks(3, kWriteNcclVariables, dir);
  launch.virtual_nodes = true;
  EXPECT_EQ(run_local_ranks(launch), 0);
  for (const std::string rank : {"0", "1", "2"})
    EXPECT_EQ(read_file(dir.path() / rank), "collbench-vnode-" + rank + " lo\n");
}

TEST(RunLocalRanks, VirtualNodesKeepASocketInterfaceTheParentChose) {
  TempDir dir;
  ScopedEnvironment env;
  env.set("NCCL_SOCKET_IFNAME", "eth7");
  auto launch = shell_ranks(2, kWriteNcclVariables, dir);
  launch.virtual_nodes = true;
  EXPECT_EQ(run_local_ranks(launch), 0);
  for (const std::string rank : {"0", "1"})
    EXPECT_EQ(read_file(dir.path() / rank), "collbench-vnode-" + rank + " eth7\n");
}

// The ranks share one machine, so NCCL's sockets stay on loopback; its host id is left alone.
TEST(RunLocalRanks, WithoutVirtualNodesRanksStillTalkOverLoopback) {
  TempDir dir;
  ScopedEnvironment env;
  env.set("NCCL_HOSTID", std::nullopt);
  env.set("NCCL_SOCKET_IFNAME", std::nullopt);
  EXPECT_EQ(run_local_ranks(shell_ranks(2, kWriteNcclVariables, dir)), 0);
  for (const char* rank : {"0", "1"}) EXPECT_EQ(read_file(dir.path() / rank), "unset lo\n");
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

// A launcher killed from outside (SIGKILL: no handler runs) takes its ranks with it.
TEST(RunLocalRanks, RanksDieWithTheirLauncher) {
  TempDir dir;
  const auto launch = shell_ranks(3, R"(echo $$ > "$TEST_DIR/$COLLBENCH_RANK"; exec sleep 60)", dir);
  const pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) _exit(run_local_ranks(launch));
  std::vector<pid_t> ranks;
  const auto started = Clock::now();
  while (ranks.size() < 3 && seconds_since(started) < 10) {
    ranks.clear();
    for (const std::string rank : {"0", "1", "2"}) {
      const std::string pid = read_file(dir.path() / rank);
      if (!pid.empty()) ranks.push_back(std::stoi(pid));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(ranks.size(), 3u);
  for (pid_t rank : ranks) EXPECT_TRUE(alive(rank)) << rank;
  kill(launcher, SIGKILL);
  waitpid(launcher, nullptr, 0);
  // The ranks were the launcher's children; with it gone they are reparented and reaped by
  // init (or this test's subreaper), so "gone" is what kill(pid, 0) sees once reaped.
  const auto killed = Clock::now();
  bool any_alive = true;
  while (any_alive && seconds_since(killed) < 5) {
    any_alive = false;
    for (pid_t rank : ranks) any_alive = any_alive || alive(rank);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(any_alive);
}

TEST(RunLocalRanks, AFailingRankEndsTheOthersAndGivesItsExitCode) {
  TempDir dir;
  const auto launch =
      shell_ranks(4, R"(if [ "$COLLBENCH_RANK" = 2 ]; then exit 5; fi; exec sleep 60)", dir);
  testing::internal::CaptureStderr();
  const auto start = Clock::now();
  EXPECT_EQ(run_local_ranks(launch), 5);
  EXPECT_LT(seconds_since(start), 20.0);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_search(
      log, std::regex(R"(collbench: rank 2 \(pid \d+\) exited with code 5\n)"))) << log;
  EXPECT_EQ(log.find("SIGKILL"), std::string::npos) << "sleep ends on SIGTERM\n" << log;
}

TEST(RunLocalRanks, AStoppedRankIsKilledAfterTheGracePeriod) {
  TempDir dir;
  const auto launch = shell_ranks(
      2, R"(if [ "$COLLBENCH_RANK" = 0 ]; then kill -STOP $$; exit 0; fi; sleep 1; exit 4)", dir);
  testing::internal::CaptureStderr();
  const auto start = Clock::now();
  EXPECT_EQ(run_local_ranks(launch), 4);
  const double elapsed = seconds_since(start);
  EXPECT_GE(elapsed, kGraceSeconds);
  EXPECT_LT(elapsed, kGraceSeconds + 15.0);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_search(
      log, std::regex(R"(collbench: rank 1 \(pid \d+\) exited with code 4\n)"))) << log;
  EXPECT_TRUE(std::regex_search(log, std::regex(R"(rank 0 \(pid \d+\) still running .*SIGKILL)")))
      << log;
}

TEST(RunLocalRanks, ARankKilledByASignalIsARuntimeFault) {
  TempDir dir;
  const auto launch = shell_ranks(
      2, R"(if [ "$COLLBENCH_RANK" = 1 ]; then kill -KILL $$; fi; exec sleep 60)", dir);
  testing::internal::CaptureStderr();
  const auto start = Clock::now();
  EXPECT_EQ(run_local_ranks(launch), 3);
  EXPECT_LT(seconds_since(start), 20.0);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_search(
      log, std::regex(R"(collbench: rank 1 \(pid \d+\) was killed by SIGKILL\n)"))) << log;
}

TEST(RunLocalRanks, SigintToTheLauncherReachesEveryRank) {
  TempDir dir;
  // A rank that the signal does not reach gives up after about 10 s and fails the job.
  const auto launch = shell_ranks(3, R"(
      trap 'exit 0' INT
      touch "$TEST_DIR/ready-$COLLBENCH_RANK"
      i=0
      while [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
      exit 7)",
                                  dir);
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  std::thread interrupter([&] {
    const auto give_up = Clock::now() + std::chrono::seconds(8);
    while (Clock::now() < give_up) {
      bool ready = true;
      for (const char* rank : {"0", "1", "2"})
        ready = ready && fs::exists(dir.path() / (std::string("ready-") + rank));
      if (ready) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(getpid(), SIGINT);
  });
  const int code = run_local_ranks(launch);
  interrupter.join();
  EXPECT_EQ(code, 0);
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler) << "the launcher restores the SIGINT handler";
}

TEST(RunLocalRanks, AMissingExecutableIsARuntimeFaultNamingThePath) {
  LocalLaunch launch;
  launch.executable = "/nonexistent/collbench-missing";
  launch.arguments = {"collbench", "run"};
  launch.nranks = 2;
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_local_ranks(launch), 3);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("/nonexistent/collbench-missing"), std::string::npos) << log;
}

TEST(RunLocalRanks, FewerThanOneRankIsAProgrammingError) {
  LocalLaunch launch;
  launch.executable = "/bin/true";
  launch.arguments = {"true"};
  launch.nranks = 0;
  EXPECT_THROW(run_local_ranks(launch), std::invalid_argument);
}

TEST(WithoutLauncherFlags, RemovesTheThreeFormsAndKeepsEverythingElseInOrder) {
  const std::vector<std::string> argv = {"collbench", "run",   "--np",     "4",  "-b",
                                         "8",         "--np=2", "--virtual-nodes", "-e",
                                         "1M",        "--nproc", "--np-extra"};
  EXPECT_EQ(without_launcher_flags(argv),
            (std::vector<std::string>{"collbench", "run", "-b", "8", "-e", "1M", "--nproc",
                                      "--np-extra"}));
  EXPECT_EQ(without_launcher_flags({"collbench", "run"}),
            (std::vector<std::string>{"collbench", "run"}));
}

}  // namespace
}  // namespace collbench
