#include "link_bounds.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "collectives/collective.h"
#include "harness/fit/curve_fits.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

std::set<std::string> hosts_of(const PointResult& point, std::span<const RankTopology> topology) {
  std::set<std::string> hosts;
  for (int rank : point.samples.world_ranks)
    for (const RankTopology& t : topology)
      if (t.rank == rank) hosts.insert(t.host);
  return hosts;
}

// Links of the kind the point crosses, between its hosts; empty when a pair of its hosts (or, on
// one host, every pair of its ranks' host) was not measured.
std::vector<const LinkFit*> links_between(const std::set<std::string>& hosts,
                                          std::span<const LinkFit> links) {
  const LinkKind kind = hosts.size() > 1 ? LinkKind::inter : LinkKind::intra;
  std::vector<const LinkFit*> out;
  std::set<std::pair<std::string, std::string>> pairs;
  for (const LinkFit& link : links)
    if (link.kind == kind && hosts.contains(link.first_host) &&
        hosts.contains(link.second_host)) {
      out.push_back(&link);
      pairs.insert(std::minmax(link.first_host, link.second_host));
    }
  const std::size_t needed = kind == LinkKind::inter ? hosts.size() * (hosts.size() - 1) / 2 : 1;
  if (pairs.size() < needed) out.clear();
  return out;
}

}  // namespace

std::vector<LinkBound> bound_by_links(std::span<const PointResult> points,
                                      std::span<const RankTopology> topology,
                                      std::span<const LinkFit> links) {
  std::vector<LinkBound> bounds;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PointResult& point = points[i];
    const std::set<std::string> hosts = hosts_of(point, topology);
    const std::vector<const LinkFit*> crossed = links_between(hosts, links);
    const std::vector<const RankFamily*> algorithms = textbook_algorithms(point.key.collective);
    if (crossed.empty() || point.key.nranks < 2 || algorithms.empty()) continue;
    LinkBound bound{.point_id = i,
                    .kind = crossed.front()->kind,
                    .links = static_cast<int>(crossed.size()),
                    .alpha_us = 0,
                    .bandwidth_GBps = std::numeric_limits<double>::infinity(),
                    .algorithm = {},
                    .predicted_us = std::numeric_limits<double>::infinity(),
                    .measured_us = point.summary.median * kMicrosecondsPerSecond};
    for (const LinkFit* link : crossed) {
      bound.alpha_us = std::max(bound.alpha_us, link->alpha_us);
      bound.bandwidth_GBps = std::min(bound.bandwidth_GBps, link->bandwidth_GBps);
    }
    const double p = point.key.nranks;
    const double bytes = static_cast<double>(point.key.size_bytes);
    const double us_per_byte = 1e-3 / bound.bandwidth_GBps;  // 1 GB/s moves 1000 bytes a us
    for (const RankFamily* algorithm : algorithms) {
      const double predicted = bound.alpha_us * algorithm->latency_factor(p) +
                               us_per_byte * bytes * algorithm->bandwidth_factor(p);
      if (predicted < bound.predicted_us) {
        bound.predicted_us = predicted;
        bound.algorithm = algorithm->name;
      }
    }
    bounds.push_back(std::move(bound));
  }
  return bounds;
}

std::vector<CurveBound> bound_curves(std::span<const PointResult> points,
                                     std::span<const LinkBound> bounds) {
  std::vector<PointKey> order;
  std::map<std::size_t, std::vector<std::pair<std::size_t, double>>> by_curve;  // size, ratio
  for (const LinkBound& bound : bounds) {
    const PointKey& key = points[bound.point_id].key;
    auto found = std::ranges::find(order, curve_key(key));
    if (found == order.end()) found = order.insert(order.end(), curve_key(key));
    by_curve[static_cast<std::size_t>(found - order.begin())].emplace_back(key.size_bytes,
                                                                          bound.ratio());
  }
  std::vector<CurveBound> curves;
  for (auto& [index, sized] : by_curve) {
    std::ranges::sort(sized);
    std::vector<double> ratios;
    for (const auto& [size, ratio] : sized) ratios.push_back(ratio);
    curves.push_back({.curve = order[index], .points = sized.size(),
                      .smallest_bytes = sized.front().first, .smallest_ratio = sized.front().second,
                      .largest_bytes = sized.back().first, .largest_ratio = sized.back().second,
                      .median_ratio = median_by_selection(ratios)});
  }
  return curves;
}

}  // namespace collbench
