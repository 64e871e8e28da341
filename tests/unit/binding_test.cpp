#include "topo/binding.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <vector>

namespace collbench {
namespace {

namespace fs = std::filesystem;

// Four CPUs as the kernel lays them out in sysfs: two cores of two hardware threads each.
class FakeCpus : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("collbench-cpus-" + std::to_string(::getpid()));
    for (int cpu = 0; cpu < 4; ++cpu) {
      const fs::path topology = root_ / "devices/system/cpu" / ("cpu" + std::to_string(cpu)) /
                                "topology";
      fs::create_directories(topology);
      std::ofstream(topology / "physical_package_id") << "0\n";
      std::ofstream(topology / "core_id") << cpu / 2 << "\n";
    }
    std::ofstream(root_ / "devices/system/cpu/online") << "0-3\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(FakeCpus, CountsCoresNotHardwareThreads) {
  EXPECT_EQ(cores_spanned("0-1", root_), 1);
  EXPECT_EQ(cores_spanned("1", root_), 1);
  EXPECT_EQ(cores_spanned("0,2", root_), 2);
  EXPECT_EQ(cores_spanned("0-3", root_), 2);
  EXPECT_EQ(online_cores(root_), 2);
}

TEST_F(FakeCpus, WithoutSysfsEachCpuIsACoreAndAnUnreadableListNone) {
  const fs::path nowhere = root_ / "missing";
  EXPECT_EQ(cores_spanned("0-3", nowhere), 4);
  EXPECT_EQ(cores_spanned("", root_), 0);
  EXPECT_EQ(cores_spanned("x", root_), 0);
  EXPECT_EQ(online_cores(nowhere), 0);
}

RankTopology rank(int number, const char* host, const char* cpus, int cores, int host_cores) {
  RankTopology topology;
  topology.rank = number;
  topology.host = host;
  topology.cpu_affinity = cpus;
  topology.cores_spanned = cores;
  topology.host_cores = host_cores;
  return topology;
}

TEST(JudgeBinding, OneCoreARankSpinningIsNoWarning) {
  const std::vector ranks = {rank(0, "a", "0", 1, 2), rank(1, "a", "1", 1, 2),
                             rank(2, "b", "0", 1, 2), rank(3, "b", "1", 1, 2)};
  const BindingVerdict verdict = judge_binding(ranks, false);
  EXPECT_FALSE(verdict.unbound || verdict.shared || verdict.oversubscribed || verdict.yielding);
  EXPECT_EQ(verdict.summary, "one core a rank, spinning");
  EXPECT_TRUE(verdict.warning.empty());
}

TEST(JudgeBinding, UnboundRanksAreToldToBind) {
  const std::vector ranks = {rank(0, "a", "0-1", 2, 2), rank(1, "a", "0-1", 2, 2)};
  const BindingVerdict verdict = judge_binding(ranks, false);
  EXPECT_TRUE(verdict.unbound);
  EXPECT_FALSE(verdict.shared);  // overlapping because unbound: said once, as unbound
  EXPECT_EQ(verdict.warning,
            "ranks are not bound to cores: small-message latency and per-rank medians will "
            "mislead; add --bind-to core (srun: --cpu-bind=cores)");
}

TEST(JudgeBinding, NamesTheUnboundRanksWhenOnlySomeAre) {
  const std::vector ranks = {rank(0, "a", "0", 1, 4), rank(1, "a", "1-3", 2, 4)};
  EXPECT_EQ(judge_binding(ranks, false).summary, "ranks 1 are not bound to cores");
}

TEST(JudgeBinding, BoundRanksOnOneCoreShareIt) {
  const std::vector ranks = {rank(0, "a", "0-1", 1, 2), rank(1, "a", "1", 1, 2),
                             rank(2, "b", "1", 1, 2)};
  const BindingVerdict verdict = judge_binding(ranks, false);
  EXPECT_TRUE(verdict.shared);
  EXPECT_NE(verdict.warning.find("ranks 0 and 1 share a core on a"), std::string::npos);
  EXPECT_NE(verdict.warning.find("bind one rank a core"), std::string::npos);
}

TEST(JudgeBinding, YieldingRanksThatFitAreToldToSpin) {
  const std::vector ranks = {rank(0, "a", "0", 1, 2), rank(1, "a", "1", 1, 2)};
  const BindingVerdict verdict = judge_binding(ranks, true);
  EXPECT_TRUE(verdict.yielding);
  EXPECT_NE(verdict.warning.find("drop --mca mpi_yield_when_idle"), std::string::npos);
}

TEST(JudgeBinding, OversubscribedRanksAreToldToStartFewer) {
  const std::vector ranks = {rank(0, "a", "0-1", 2, 2), rank(1, "a", "0-1", 2, 2),
                             rank(2, "a", "0-1", 2, 2)};
  const BindingVerdict yielding = judge_binding(ranks, true);
  EXPECT_TRUE(yielding.oversubscribed && yielding.unbound && yielding.yielding);
  EXPECT_EQ(yielding.warning,
            "oversubscribed (3 ranks on the 2 cores of a); ranks are not bound to cores; ranks "
            "yield the CPU while they wait (mpi_yield_when_idle): small-message latency and "
            "per-rank medians will mislead; start at most one rank a core");
  const BindingVerdict spinning = judge_binding(ranks, false);
  EXPECT_NE(spinning.warning.find("spinning ranks share cores and starve each other"),
            std::string::npos);
  EXPECT_NE(spinning.warning.find("or add --mca mpi_yield_when_idle 1"), std::string::npos);
}

TEST(JudgeBinding, RanksWhoseCoresAreUnknownAreNotJudged) {
  const std::vector ranks = {rank(0, "a", "", 0, 0), rank(1, "a", "", 0, 0)};
  EXPECT_TRUE(judge_binding(ranks, false).warning.empty());
}

}  // namespace
}  // namespace collbench
