#include "harness/links/link_outliers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

void check_input(std::span<const LinkSpeed> links, int hosts, double shortfall) {
  if (!(shortfall > 0 && shortfall < 1))
    throw std::invalid_argument(fmt::format("link outliers: shortfall {} is not in (0, 1)",
                                            shortfall));
  for (const LinkSpeed& link : links) {
    if (link.first < 0 || link.first >= hosts || link.second < 0 || link.second >= hosts ||
        link.first == link.second)
      throw std::invalid_argument(fmt::format(
          "link outliers: link {}-{} among {} hosts", link.first, link.second, hosts));
    if (!(link.speed > 0) || !std::isfinite(link.speed))
      throw std::invalid_argument(fmt::format("link outliers: link {}-{} has speed {}",
                                              link.first, link.second, link.speed));
  }
}

// Each host's median link speed; none for a host without links.
std::vector<std::optional<double>> typical_speeds(std::span<const LinkSpeed> links, int hosts) {
  std::vector<std::vector<double>> speeds(hosts);
  for (const LinkSpeed& link : links) {
    speeds[link.first].push_back(link.speed);
    speeds[link.second].push_back(link.speed);
  }
  std::vector<std::optional<double>> typical(hosts);
  for (int host = 0; host < hosts; ++host)
    if (!speeds[host].empty()) typical[host] = median_by_selection(speeds[host]);
  return typical;
}

}  // namespace

LinkOutliers find_link_outliers(std::span<const LinkSpeed> links, int hosts, double shortfall) {
  check_input(links, hosts, shortfall);
  const std::vector<std::optional<double>> typical = typical_speeds(links, hosts);
  std::vector<double> host_speeds;
  for (const auto& speed : typical)
    if (speed) host_speeds.push_back(*speed);
  LinkOutliers outliers;
  for (const auto& speed : typical) outliers.typical_speeds.push_back(speed.value_or(0));
  if (host_speeds.empty()) return outliers;
  outliers.median_host_speed = median_by_selection(host_speeds);
  const double floor = (1 - shortfall) * outliers.median_host_speed;
  for (int host = 0; host < hosts; ++host)
    if (typical[host] && *typical[host] < floor) outliers.hosts.push_back(host);
  for (std::size_t index = 0; index < links.size(); ++index) {
    const LinkSpeed& link = links[index];
    const double expected = std::max(*typical[link.first], *typical[link.second]);
    if (link.speed < (1 - shortfall) * expected) outliers.links.push_back(index);
  }
  return outliers;
}

}  // namespace collbench
