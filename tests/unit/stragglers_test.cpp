#include "harness/stats/stragglers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "harness/stats/sampling_distributions.h"

namespace collbench {
namespace {

constexpr int kSeeds = 1000;
constexpr int kPoints = 12;
constexpr int kSamplesPerPoint = 100;

// The offset of column `column` in every sample of point `point`, as a share of its median.
using Structure = std::function<double(int point, int column)>;

struct SyntheticRun {
  int ranks = 4;
  std::vector<std::string> hosts = {"h1", "h1", "h1", "h1"};
  double noise = 0.05;  // each rank's end, a share of the median, normal
  Structure ends = [](int, int) { return 0.0; };
  Structure starts = [](int, int) { return 0.0; };
};

// `run`'s points, each with its own median (from 5 us to 2 ms), its samples' ends and starts
// fed to a search as `run` feeds them. Starts jitter by 0.2 us at most, like ranks that wait
// for t0 by spinning.
std::vector<Straggler> stragglers_of(const SyntheticRun& run, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> noise(0, run.noise);
  std::uniform_real_distribution<double> jitter(0, 0.2e-6);
  std::vector<int> world_ranks(run.ranks);
  for (int rank = 0; rank < run.ranks; ++rank) world_ranks[rank] = rank;
  StragglerSearch search;
  for (int point = 0; point < kPoints; ++point) {
    const double median = 5e-6 * std::pow(400.0, point / (kPoints - 1.0));
    std::vector<double> ends, starts;
    for (int sample = 0; sample < kSamplesPerPoint; ++sample) {
      double latest_start = 0;
      for (int rank = 0; rank < run.ranks; ++rank) {
        starts.push_back(jitter(engine) + median * run.starts(point, rank));
        latest_start = std::max(latest_start, starts.back());
      }
      // A collective waits for its latest starter.
      for (int rank = 0; rank < run.ranks; ++rank)
        ends.push_back(latest_start + median * (1 + run.ends(point, rank) + noise(engine)));
    }
    search.add(StragglerKind::finishes_last, world_ranks, run.hosts, ends, median, 0);
    search.add(StragglerKind::starts_late, world_ranks, run.hosts, starts, median, 0);
  }
  return search.record().named;
}

// In how many of kSeeds seeds `accept` holds of what was named; printed as `what`.
int seeds_where(const char* what, const SyntheticRun& run,
                const std::function<bool(const std::vector<Straggler>&)>& accept) {
  int count = 0;
  for (int seed = 0; seed < kSeeds; ++seed) count += accept(stragglers_of(run, seed)) ? 1 : 0;
  std::printf("%s: %d/%d seeds\n", what, count, kSeeds);
  return count;
}

bool nobody(const std::vector<Straggler>& named) { return named.empty(); }

TEST(BinomialUpperTail, MatchesTheSumOfItsTerms) {
  for (const auto& [k, n, p] : {std::tuple{0, 10, 0.3},
                                {3, 10, 0.3},
                                {10, 10, 0.25},
                                {7, 16, 1.0 / 3},
                                {16, 16, 0.5},
                                {1, 1, 0.5},
                                {5, 4, 0.5}}) {
    double sum = 0;
    for (int j = k; j <= n; ++j)
      sum += std::tgamma(n + 1) / std::tgamma(j + 1) / std::tgamma(n - j + 1) * std::pow(p, j) *
             std::pow(1 - p, n - j);
    EXPECT_NEAR(binomial_upper_tail(k, n, p), sum, 1e-12 * std::max(sum, 1e-300))
        << k << " of " << n << " at " << p;
  }
  EXPECT_EQ(binomial_upper_tail(3, 5, 1.0), 1.0);
}

TEST(Stragglers, RanksAlikeNameNobodyInAtLeast95PercentOfSeeds) {
  EXPECT_GE(seeds_where("4 ranks alike on one host, nobody named", {}, nobody), 950);
  EXPECT_GE(seeds_where("3 ranks alike on 3 hosts, nobody named",
                        {.ranks = 3, .hosts = {"h1", "h2", "h3"}}, nobody),
            950);
}

TEST(Stragglers, APlantedLateRankIsNamedWithItsHostInAtLeast95PercentOfSeeds) {
  // Rank 3 ends 30% of the median late, on the second of two hosts.
  const SyntheticRun run{.hosts = {"h1", "h1", "h2", "h2"},
                         .ends = [](int, int rank) { return rank == 3 ? 0.3 : 0.0; }};
  const int named = seeds_where(
      "rank 3 30% late, it and its host named", run, [](const std::vector<Straggler>& named) {
        return named.size() == 2 && named[0].rank == 3 && named[0].host == "h2" &&
               named[0].kind == StragglerKind::finishes_last &&
               named[1].rank == Straggler::kHostRow && named[1].host == "h2" &&
               named[1].kind == StragglerKind::finishes_last;
      });
  EXPECT_GE(named, 950);
  const Straggler rank = stragglers_of(run, 1).at(0);
  EXPECT_EQ(rank.points, kPoints);
  EXPECT_EQ(rank.points_last, kPoints);
  EXPECT_EQ(rank.samples, std::uint64_t{kPoints * kSamplesPerPoint});
  EXPECT_GT(rank.times_last, 0.99 * rank.samples);
  EXPECT_DOUBLE_EQ(rank.chance, 0.25);
  EXPECT_NEAR(rank.p_value, 4 * std::pow(0.25, kPoints), 1e-12);
  EXPECT_GT(rank.median_lag_s, 0.25 * 5e-6 * std::pow(400.0, 0.5));
}

TEST(Stragglers, ALateStarterIsNamedForItsStartsOnly) {
  // Rank 1 starts 40% of the median late; the operation waits for it, so every rank ends late.
  const SyntheticRun run{.starts = [](int, int rank) { return rank == 1 ? 0.4 : 0.0; }};
  EXPECT_GE(seeds_where("rank 1 starting 40% late, named for its starts alone", run,
                        [](const std::vector<Straggler>& named) {
                          return named.size() == 1 && named[0].rank == 1 &&
                                 named[0].kind == StragglerKind::starts_late;
                        }),
            950);
}

TEST(Stragglers, ARankLastByAnAlgorithmsStructureIsNotNamed) {
  // Rank 0 ends 0.1% of the median after the others in every sample (5 ns to 2 us), beyond their
  // noise: latest in every sample of every point, by far less than a slow rank costs.
  const SyntheticRun run{.noise = 1e-4,
                         .ends = [](int, int rank) { return rank == 0 ? 1e-3 : 0.0; }};
  EXPECT_EQ(seeds_where("rank 0 last by 0.1% in every sample, nobody named", run, nobody), kSeeds);
  // Nor one latest by 10% of every point's median: a message's latency in a tree's last step.
  const SyntheticRun tree{.ends = [](int, int rank) { return rank == 0 ? 0.1 : 0.0; }};
  EXPECT_GE(seeds_where("rank 0 last by 10% in every sample, nobody named", tree, nobody), 950);
}

// kPoints points of two ranks, rank 1 ending `lag` after rank 0 in every sample.
std::vector<Straggler> two_ranks_apart(double median, double lag, double clock_error) {
  StragglerSearch search;
  for (int point = 0; point < kPoints; ++point)
    search.add(StragglerKind::finishes_last, std::vector{0, 1}, std::vector<std::string>{"a", "b"},
               std::vector{median - lag, median}, median, clock_error);
  return search.record().named;
}

TEST(Stragglers, ALagUnderAMicrosecondOrTheClocksErrorIsNotNamed) {
  EXPECT_TRUE(two_ranks_apart(2e-6, 0.6e-6, 0).empty());   // 30% of the median, under 1 us
  EXPECT_EQ(two_ranks_apart(4e-6, 1.2e-6, 0).size(), 2u);  // rank 1 and host b
  // Clocks good to 8 us cannot order ends 5 us apart.
  EXPECT_TRUE(two_ranks_apart(15e-6, 5e-6, 8e-6).empty());
  EXPECT_EQ(two_ranks_apart(15e-6, 5e-6, 2e-6).size(), 2u);
}

TEST(Stragglers, ARankLatestInSomePointsOnlyIsNotNamed) {
  // Each point's algorithm makes another rank latest by 40%: what a sweep over collectives and
  // sizes looks like. Any rank's samples alone would name it; its points do not.
  const SyntheticRun run{.ends = [](int point, int rank) {
    return rank == static_cast<int>((point * 7 + 3) % 4) ? 0.4 : 0.0;
  }};
  EXPECT_GE(seeds_where("another rank 40% last in each point, nobody named", run, nobody), 950);
}

TEST(Stragglers, AHostHoldingEveryRankIsNeverNamed) {
  const SyntheticRun run{.ends = [](int, int rank) { return rank == 2 ? 0.5 : 0.0; }};
  for (const Straggler& straggler : stragglers_of(run, 7)) EXPECT_EQ(straggler.rank, 2);
}

TEST(Stragglers, ASlowHostIsNamedWhicheverOfItsRanksIsLatest) {
  // Host h2's two ranks are both 40% slow, so neither alone is latest in most samples.
  const SyntheticRun run{.hosts = {"h1", "h1", "h2", "h2"},
                         .ends = [](int, int rank) { return rank >= 2 ? 0.4 : 0.0; }};
  EXPECT_GE(seeds_where("host h2's ranks both 40% late, h2 named", run,
                        [](const std::vector<Straggler>& named) {
                          return !named.empty() && named.back().rank == Straggler::kHostRow &&
                                 named.back().host == "h2";
                        }),
            950);
}

TEST(Stragglers, PointsOfOtherColumnsAreTestedApart) {
  StragglerSearch search;
  const std::vector<std::string> hosts = {"h1", "h1"};
  for (int point = 0; point < kPoints; ++point) {
    search.add(StragglerKind::finishes_last, std::vector{0, 1}, hosts, std::vector{1e-5, 2e-5},
               1.5e-5, 0);
    search.add(StragglerKind::finishes_last, std::vector{2, 3}, hosts, std::vector{2e-5, 1e-5},
               1.5e-5, 0);
  }
  const StragglerRecord record = search.record();
  ASSERT_EQ(record.named.size(), 2u);
  EXPECT_EQ(record.named[0].rank, 1);
  EXPECT_EQ(record.named[1].rank, 2);
  EXPECT_EQ(record.named[0].points, kPoints);
  EXPECT_EQ(record.points, 2 * kPoints);
}

}  // namespace
}  // namespace collbench
