#include "harness/links/link_fits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "harness/plan/pair_rounds.h"

namespace collbench {
namespace {

constexpr std::size_t kSmall = 8;
constexpr std::size_t kLarge = std::size_t{2} << 20;

LinkPoint point(int source, int destination, LinkMode mode, std::size_t size, double seconds,
                const std::vector<std::string>& hosts) {
  LinkPoint p;
  p.source_rank = source;
  p.destination_rank = destination;
  p.source_host = hosts[source];
  p.destination_host = hosts[destination];
  p.kind = hosts[source] == hosts[destination] ? LinkKind::intra : LinkKind::inter;
  p.transport = "tcp/eth0";
  p.mode = mode;
  p.size_bytes = size;
  p.samples_seconds = {seconds};
  p.summary = summarize(p.samples_seconds);
  return p;
}

// Every pair of ranks `hosts.size()` with latency `alpha_s` and bandwidth `speed(a, b)` each way
// (bytes per second), as `collbench links` measures them: latency at two sizes, a window each
// way and both ways at once at the largest.
template <typename Speed>
std::vector<LinkPoint> matrix(const std::vector<std::string>& hosts, double alpha_s, Speed speed) {
  std::vector<LinkPoint> points;
  for (const auto& round : pair_rounds(static_cast<int>(hosts.size())))
    for (const Pair& pair : round) {
      const int a = pair.first, b = pair.second;
      const double seconds = kLarge / speed(a, b);
      points.push_back(point(a, b, LinkMode::latency, kSmall, alpha_s, hosts));
      points.push_back(point(a, b, LinkMode::latency, kLarge, alpha_s + seconds, hosts));
      points.push_back(point(a, b, LinkMode::bandwidth, kLarge, seconds, hosts));
      points.push_back(point(b, a, LinkMode::bandwidth, kLarge, kLarge / speed(b, a), hosts));
      points.push_back(point(a, b, LinkMode::bidirectional, kLarge, seconds, hosts));
    }
  return points;
}

const std::vector<std::string> kFourHosts{"h1", "h2", "h3", "h4"};

TEST(LinkFits, AlphaIsTheSmallestLatencyAndTheBandwidthTheSlowerDirection) {
  const auto points = matrix({"h1", "h2"}, 12e-6, [](int a, int) { return a == 0 ? 2e9 : 1.5e9; });
  const LinkAnalysis analysis = analyse_links(points, kDefaultShortfall);
  ASSERT_EQ(analysis.fits.size(), 1u);
  const LinkFit& fit = analysis.fits[0];
  EXPECT_EQ(fit.first_host, "h1");
  EXPECT_EQ(fit.second_host, "h2");
  EXPECT_EQ(fit.kind, LinkKind::inter);
  EXPECT_DOUBLE_EQ(fit.alpha_us, 12);
  EXPECT_EQ(fit.alpha_bytes, kSmall);
  EXPECT_EQ(fit.largest_bytes, kLarge);
  EXPECT_DOUBLE_EQ(fit.forward_GBps, 2);
  EXPECT_DOUBLE_EQ(fit.backward_GBps, 1.5);
  EXPECT_DOUBLE_EQ(fit.bandwidth_GBps, 1.5);
  EXPECT_DOUBLE_EQ(fit.bidirectional_GBps, 4);  // both ways' bytes in one message time
}

TEST(LinkFits, AlphaStepsPastASmallSizeAGlitchHeldUp) {
  auto points = matrix({"h1", "h2"}, 12e-6, [](int, int) { return 2e9; });
  points.push_back(point(0, 1, LinkMode::latency, 512, 13e-6, {"h1", "h2"}));
  for (LinkPoint& p : points)
    if (p.mode == LinkMode::latency && p.size_bytes == kSmall) {
      p.samples_seconds = {1.1e-3};  // as a TCP link on the virtual cluster once held 8 B
      p.summary = summarize(p.samples_seconds);
    }
  const LinkAnalysis analysis = analyse_links(points, kDefaultShortfall);
  ASSERT_EQ(analysis.fits.size(), 1u);
  EXPECT_DOUBLE_EQ(analysis.fits[0].alpha_us, 13);
  EXPECT_EQ(analysis.fits[0].alpha_bytes, 512u);
}

TEST(LinkFits, AHealthyMatrixNamesNothing) {
  const auto points = matrix(kFourHosts, 12e-6, [](int a, int b) { return 1.4e9 + 1e7 * (a + b); });
  const LinkAnalysis analysis = analyse_links(points, kDefaultShortfall);
  EXPECT_EQ(analysis.fits.size(), 6u);
  EXPECT_TRUE(analysis.slow_hosts.empty());
  EXPECT_TRUE(std::none_of(analysis.fits.begin(), analysis.fits.end(),
                           [](const LinkFit& fit) { return fit.slow; }));
}

TEST(LinkFits, ACappedHostIsNamedWithExactlyItsLinks) {
  const auto points =
      matrix(kFourHosts, 12e-6, [](int a, int b) { return a == 2 || b == 2 ? 6e7 : 1.4e9; });
  const LinkAnalysis analysis = analyse_links(points, kDefaultShortfall);
  ASSERT_EQ(analysis.slow_hosts.size(), 1u);
  EXPECT_EQ(analysis.slow_hosts[0].name, "h3");
  EXPECT_NEAR(analysis.slow_hosts[0].typical_GBps, 0.06, 1e-12);
  EXPECT_NEAR(analysis.slow_hosts[0].median_GBps, 1.4, 1e-12);
  for (const LinkFit& fit : analysis.fits)
    EXPECT_EQ(fit.slow, fit.first_host == "h3" || fit.second_host == "h3") << fit.first_host
                                                                            << fit.second_host;
}

TEST(LinkFits, OneDirectionAtHalfRateNamesTheLinkAlone) {
  const auto points = matrix(kFourHosts, 12e-6, [](int a, int b) { return a == 3 && b == 0 ? 7e8 : 1.4e9; });
  const LinkAnalysis analysis = analyse_links(points, kDefaultShortfall);
  EXPECT_TRUE(analysis.slow_hosts.empty());
  const std::set<std::string> bad{"h1", "h4"};
  for (const LinkFit& fit : analysis.fits)
    EXPECT_EQ(fit.slow, (std::set<std::string>{fit.first_host, fit.second_host} == bad));
}

TEST(LinkFits, RanksOfOneHostAreNamedByRankAndJudgedApartFromTheNetwork) {
  const std::vector<std::string> hosts{"a", "a", "b", "b"};
  const auto points = matrix(hosts, 1e-6, [&](int x, int y) { return hosts[x] == hosts[y] ? 8e9 : 1e9; });
  const LinkAnalysis analysis = analyse_links(points, kDefaultShortfall);
  ASSERT_TRUE(named_by_rank(analysis.fits));
  EXPECT_EQ(pair_label(analysis.fits[0], true), "rank 0 on a <-> rank 3 on b");
  // Shared memory is far faster than the network, and neither kind makes the other slow.
  EXPECT_TRUE(analysis.slow_hosts.empty());
  EXPECT_TRUE(std::none_of(analysis.fits.begin(), analysis.fits.end(),
                           [](const LinkFit& fit) { return fit.slow; }));
}

TEST(LinkFits, APairWithoutABandwidthPointHasNoModel) {
  auto points = matrix({"h1", "h2"}, 12e-6, [](int, int) { return 1e9; });
  std::erase_if(points, [](const LinkPoint& p) { return p.mode == LinkMode::bandwidth; });
  EXPECT_TRUE(analyse_links(points, kDefaultShortfall).fits.empty());
}

TEST(LinkPoint, BandwidthCountsBothDirectionsOfABidirectionalMessage) {
  const std::vector<std::string> hosts{"h1", "h2"};
  EXPECT_DOUBLE_EQ(point(0, 1, LinkMode::bandwidth, 1000, 1e-6, hosts).bandwidth_GBps(), 1);
  EXPECT_DOUBLE_EQ(point(0, 1, LinkMode::bidirectional, 1000, 1e-6, hosts).bandwidth_GBps(), 2);
  EXPECT_EQ(link_label(point(0, 1, LinkMode::bandwidth, 8, 1, hosts)), "h1 -> h2");
  EXPECT_EQ(link_label(point(0, 1, LinkMode::latency, 8, 1, hosts)), "h1 <-> h2");
  for (const LinkMode mode : kLinkModes) EXPECT_EQ(parse_link_mode(name(mode)), mode);
  EXPECT_FALSE(parse_link_mode("ping"));
}

}  // namespace
}  // namespace collbench
