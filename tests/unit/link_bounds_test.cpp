#include "harness/links/link_bounds.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace collbench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Two ranks on each of h1, h2 (and h3 when asked).
std::vector<RankTopology> topology(int hosts) {
  std::vector<RankTopology> ranks;
  for (int rank = 0; rank < 2 * hosts; ++rank) {
    RankTopology& r = ranks.emplace_back();
    r.rank = rank;
    r.host = fmt::format("h{}", rank / 2 + 1);
  }
  return ranks;
}

LinkFit link(const std::string& first, const std::string& second, double alpha_us, double GBps) {
  LinkFit fit;
  fit.first_host = first;
  fit.second_host = second;
  fit.kind = first == second ? LinkKind::intra : LinkKind::inter;
  fit.alpha_us = alpha_us;
  fit.bandwidth_GBps = GBps;
  return fit;
}

PointResult point(CollectiveKind collective, std::vector<int> ranks, std::size_t size,
                  double median_us) {
  PointResult p;
  p.key.backend = "mpi";
  p.key.collective = collective;
  p.key.nranks = static_cast<int>(ranks.size());
  p.key.size_bytes = size;
  p.summary.median = median_us / 1e6;
  p.samples.world_ranks = std::move(ranks);
  return p;
}

TEST(LinkBounds, TheFastestTextbookAlgorithmOnTheLinksPredicts) {
  const std::vector<LinkFit> links{link("h1", "h2", 10, 1)};
  const std::vector<PointResult> points{point(CollectiveKind::allreduce, {0, 1, 2, 3}, kMiB, 0)};
  // p = 4: ring 6·alpha + 1.5·n·beta, tree 4·alpha + 2·n·beta, recursive doubling
  // 2·alpha + 2·n·beta, Rabenseifner 4·alpha + 1.5·n·beta; at 1 GB/s a byte takes 1 ns.
  const double rabenseifner_us = 4 * 10 + 1.5 * kMiB * 1e-3;
  std::vector<PointResult> measured = points;
  measured[0].summary.median = 2 * rabenseifner_us / 1e6;
  const auto bounds = bound_by_links(measured, topology(2), links);
  ASSERT_EQ(bounds.size(), 1u);
  EXPECT_EQ(bounds[0].kind, LinkKind::inter);
  EXPECT_EQ(bounds[0].algorithm, "rabenseifner");
  EXPECT_DOUBLE_EQ(bounds[0].predicted_us, rabenseifner_us);
  EXPECT_DOUBLE_EQ(bounds[0].ratio(), 2);
}

TEST(LinkBounds, ShortMessagesAreBoundByTheLatencyOptimalAlgorithm) {
  const std::vector<LinkFit> links{link("h1", "h2", 10, 1)};
  const auto bounds =
      bound_by_links(std::vector{point(CollectiveKind::allgather, {0, 2}, 8, 25)}, topology(2),
                     links);
  ASSERT_EQ(bounds.size(), 1u);
  // p = 2: log2(p) = p − 1 = 1, so the ring and recursive doubling tie; the ring is listed first.
  EXPECT_EQ(bounds[0].algorithm, "ring");
  EXPECT_DOUBLE_EQ(bounds[0].predicted_us, 10 + 0.5 * 8 * 1e-3);
}

TEST(LinkBounds, TheSlowestLinkBetweenThePointsHostsSetsThePace) {
  const std::vector<LinkFit> links{link("h1", "h2", 10, 2), link("h1", "h3", 30, 2),
                                   link("h2", "h3", 12, 0.5)};
  const auto bounds = bound_by_links(
      std::vector{point(CollectiveKind::reduce_scatter, {0, 2, 4}, kMiB, 1)}, topology(3), links);
  ASSERT_EQ(bounds.size(), 1u);
  EXPECT_EQ(bounds[0].links, 3);
  EXPECT_DOUBLE_EQ(bounds[0].alpha_us, 30);
  EXPECT_DOUBLE_EQ(bounds[0].bandwidth_GBps, 0.5);
}

TEST(LinkBounds, APointOnOneHostIsJudgedByThatHostsIntraLinksOnly) {
  const std::vector<LinkFit> links{link("h1", "h2", 10, 1), link("h1", "h1", 0.5, 20)};
  const std::vector<PointResult> points{point(CollectiveKind::allreduce, {0, 1}, kMiB, 100),
                                        point(CollectiveKind::allreduce, {2, 3}, kMiB, 100)};
  const auto bounds = bound_by_links(points, topology(2), links);
  ASSERT_EQ(bounds.size(), 1u);  // h2 has no intra link measured
  EXPECT_EQ(bounds[0].point_id, 0u);
  EXPECT_EQ(bounds[0].kind, LinkKind::intra);
  EXPECT_DOUBLE_EQ(bounds[0].bandwidth_GBps, 20);
}

TEST(LinkBounds, APointAcrossAPairOfHostsNotMeasuredHasNoBound) {
  const std::vector<LinkFit> links{link("h1", "h2", 10, 1), link("h2", "h3", 10, 1)};
  EXPECT_TRUE(bound_by_links(std::vector{point(CollectiveKind::allreduce, {0, 2, 4}, kMiB, 1)},
                             topology(3), links)
                  .empty());
}

TEST(LinkBounds, ACurveSummarisesItsSmallestLargestAndMedianRatio) {
  const std::vector<LinkFit> links{link("h1", "h2", 10, 1)};
  std::vector<PointResult> points;
  for (std::size_t size : {kMiB, std::size_t{8}, 4 * kMiB})
    points.push_back(point(CollectiveKind::allgather, {0, 2}, size, 0));
  auto bounds = bound_by_links(points, topology(2), links);
  ASSERT_EQ(bounds.size(), 3u);
  const double ratios[] = {2, 5, 1.5};  // at 1 MiB, 8 B, 4 MiB
  for (std::size_t i = 0; i < bounds.size(); ++i)
    bounds[i].measured_us = ratios[i] * bounds[i].predicted_us;
  const auto curves = bound_curves(points, bounds);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].points, 3u);
  EXPECT_EQ(curves[0].smallest_bytes, 8u);
  EXPECT_DOUBLE_EQ(curves[0].smallest_ratio, 5);
  EXPECT_EQ(curves[0].largest_bytes, 4 * kMiB);
  EXPECT_DOUBLE_EQ(curves[0].largest_ratio, 1.5);
  EXPECT_DOUBLE_EQ(curves[0].median_ratio, 2);
  EXPECT_EQ(curves[0].curve.size_bytes, 0u);
}

}  // namespace
}  // namespace collbench
