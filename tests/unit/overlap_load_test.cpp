#include "backends/overlap_load.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <limits>

#include "backends/host_memory_load.h"

namespace collbench {
namespace {

TEST(LoadKind, NamesReadBack) {
  for (LoadKind kind : all_load_kinds()) EXPECT_EQ(parse_load_kind(name(kind)), kind);
  EXPECT_FALSE(parse_load_kind("cpu").has_value());
}

TEST(PassesFor, RoundsToWholePassesAndNeverBelowOne) {
  EXPECT_EQ(passes_for(1e-3, 1e-4), 10);
  EXPECT_EQ(passes_for(1.04e-3, 1e-4), 10);
  EXPECT_EQ(passes_for(1e-6, 1e-4), 1);
  EXPECT_EQ(passes_for(1e-3, 0), 1);
  EXPECT_EQ(passes_for(1e9, 1e-12), std::numeric_limits<int>::max());
}

TEST(HostMemoryLoad, StartReturnsBeforeTheUnitEnds) {
  const auto load = make_host_memory_load({.local_rank = 0, .ranks_per_node = 1});
  load->size_for(50e-3);
  const auto before = std::chrono::steady_clock::now();
  load->start();
  const double returned_after =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  const double unit = load->finish_seconds();
  EXPECT_LT(returned_after, unit / 2);
}

TEST(HostMemoryLoad, SaysWhereItRuns) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: none is ever spare";
  const auto spare = make_host_memory_load({.local_rank = 0, .ranks_per_node = 1});
  const auto crowded = make_host_memory_load({.local_rank = 0, .ranks_per_node = 1 << 20});
  EXPECT_NE(crowded->placement().find("no spare core"), std::string_view::npos);
  EXPECT_EQ(spare->placement().find("no spare core"), std::string_view::npos);
}

}  // namespace
}  // namespace collbench
