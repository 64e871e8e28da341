#include "harness/links/link_outliers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "harness/plan/pair_rounds.h"

namespace collbench {
namespace {

constexpr double kShortfall = 0.2;

// Every pair of `hosts`, each link `healthy` GB/s times lognormal noise of `spread` (0.05: about
// 5% between links), then `slow` applied.
template <typename Slow>
std::vector<LinkSpeed> matrix(int hosts, double spread, std::mt19937& random, Slow slow) {
  std::lognormal_distribution<double> noise(0, spread);
  std::vector<LinkSpeed> links;
  for (const auto& round : pair_rounds(hosts))
    for (const Pair& pair : round) {
      LinkSpeed link{pair.first, pair.second, 12.5 * noise(random)};
      link.speed *= slow(link);
      links.push_back(link);
    }
  return links;
}

std::vector<std::size_t> links_touching(const std::vector<LinkSpeed>& links, int host) {
  std::vector<std::size_t> touching;
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].first == host || links[i].second == host) touching.push_back(i);
  return touching;
}

// Healthy links, lognormal 5% apart, fall 20% short of their better host's median about 4
// sigma out: a rare link is named (2 of 78,500 here), never a host.
constexpr double kFalseLinkRateBound = 1e-4;

// Over 500 seeds at each size: how many links were named that `expected` did not name, out of
// how many, and whether every expected link and host was named in every seed.
struct Tally {
  std::size_t false_links = 0;
  std::size_t links = 0;
  std::size_t missed = 0;  // seeds whose outliers lack an expected link or host
};

template <typename Slow, typename Expected>
Tally tally(const std::vector<int>& sizes, Slow slow, Expected expected) {
  Tally tally;
  for (int hosts : sizes)
    for (unsigned seed = 0; seed < 500; ++seed) {
      std::mt19937 random(seed);
      const auto links = matrix(hosts, 0.05, random, [&](const LinkSpeed& link) {
        return slow(link, hosts, seed);
      });
      const LinkOutliers found = find_link_outliers(links, hosts, kShortfall);
      const LinkOutliers wanted = expected(links, hosts, seed);
      tally.links += links.size();
      if (found.hosts != wanted.hosts) ++tally.missed;
      for (std::size_t link : wanted.links)
        if (std::find(found.links.begin(), found.links.end(), link) == found.links.end()) {
          ++tally.missed;
          break;
        }
      tally.false_links += found.links.size() - std::min(found.links.size(), wanted.links.size());
    }
  return tally;
}

TEST(LinkOutliers, AHealthyMatrixNamesNoHostAndHardlyALinkOver500Seeds) {
  const Tally healthy = tally(
      {3, 4, 8, 16}, [](const LinkSpeed&, int, unsigned) { return 1.0; },
      [](const std::vector<LinkSpeed>&, int, unsigned) { return LinkOutliers{}; });
  EXPECT_EQ(healthy.missed, 0u) << "a healthy host named";
  EXPECT_LT(static_cast<double>(healthy.false_links) / healthy.links, kFalseLinkRateBound)
      << healthy.false_links << " of " << healthy.links;
}

// A host capped to a fraction of the fabric (tbf on its interface) is named in every seed, with
// every link it takes part in.
TEST(LinkOutliers, ACappedHostAndAllItsLinksOver500Seeds) {
  for (double cap : {0.04, 0.5}) {
    const auto capped = [](int hosts, unsigned seed) { return static_cast<int>(seed % hosts); };
    const Tally found = tally(
        {3, 4, 8, 16},
        [&](const LinkSpeed& link, int hosts, unsigned seed) {
          const int host = capped(hosts, seed);
          return link.first == host || link.second == host ? cap : 1.0;
        },
        [&](const std::vector<LinkSpeed>& links, int hosts, unsigned seed) {
          LinkOutliers outliers;
          outliers.links = links_touching(links, capped(hosts, seed));
          outliers.hosts = {capped(hosts, seed)};
          return outliers;
        });
    EXPECT_EQ(found.missed, 0u) << "cap " << cap;
    EXPECT_LT(static_cast<double>(found.false_links) / found.links, kFalseLinkRateBound)
        << "cap " << cap << ": " << found.false_links << " of " << found.links;
  }
}

// One bad cable between healthy hosts is named in every seed, and no host.
TEST(LinkOutliers, OneBadLinkBetweenHealthyHostsOver500Seeds) {
  const auto bad = [](const LinkSpeed& link) { return link.first == 1 && link.second == 2; };
  const Tally found = tally(
      {4, 8, 16}, [&](const LinkSpeed& link, int, unsigned) { return bad(link) ? 0.5 : 1.0; },
      [&](const std::vector<LinkSpeed>& links, int, unsigned) {
        LinkOutliers expected;
        for (std::size_t i = 0; i < links.size(); ++i)
          if (bad(links[i])) expected.links.push_back(i);
        return expected;
      });
  EXPECT_EQ(found.missed, 0u);
  EXPECT_LT(static_cast<double>(found.false_links) / found.links, kFalseLinkRateBound)
      << found.false_links << " of " << found.links;
}

TEST(LinkOutliers, TwoHostsHaveNoPeersToFallShortOf) {
  const std::vector<LinkSpeed> one{{0, 1, 0.01}};
  const LinkOutliers outliers = find_link_outliers(one, 2, kShortfall);
  EXPECT_TRUE(outliers.links.empty() && outliers.hosts.empty());
}

TEST(LinkOutliers, RefusesWhatIsNotAMatrix) {
  const std::vector<LinkSpeed> self{{1, 1, 1.0}}, outside{{0, 3, 1.0}}, stopped{{0, 1, 0.0}};
  EXPECT_THROW(find_link_outliers(self, 3, kShortfall), std::invalid_argument);
  EXPECT_THROW(find_link_outliers(outside, 3, kShortfall), std::invalid_argument);
  EXPECT_THROW(find_link_outliers(stopped, 3, kShortfall), std::invalid_argument);
  EXPECT_THROW(find_link_outliers({}, 3, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace collbench
