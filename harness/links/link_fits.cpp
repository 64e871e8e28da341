#include "harness/links/link_fits.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <utility>

#include "harness/links/link_outliers.h"

namespace collbench {
namespace {

using RankPair = std::pair<int, int>;

RankPair pair_of(const LinkPoint& point) {
  return std::minmax(point.source_rank, point.destination_rank);
}

std::string rank_name(int rank, const std::string& host, bool by_rank) {
  return by_rank ? fmt::format("rank {} on {}", rank, host) : host;
}

// The link's model from its points: none without a latency and a bandwidth point.
std::optional<LinkFit> model_of(const RankPair& pair, std::span<const LinkPoint> points) {
  LinkFit fit;
  fit.first_rank = pair.first;
  fit.second_rank = pair.second;
  const LinkPoint* fastest = nullptr;  // the latency point with the smallest median
  for (const LinkPoint& point : points) {
    if (point.mode == LinkMode::latency &&
        (!fastest || point.summary.median < fastest->summary.median))
      fastest = &point;
    if (point.mode == LinkMode::bandwidth) fit.largest_bytes = std::max(fit.largest_bytes, point.size_bytes);
  }
  if (fit.largest_bytes == 0 || !fastest) return std::nullopt;
  fit.alpha_bytes = fastest->size_bytes;
  fit.alpha_us = fastest->summary.median * 1e6;
  for (const LinkPoint& point : points) {
    if (point.size_bytes != fit.largest_bytes) continue;
    if (point.mode == LinkMode::bidirectional) fit.bidirectional_GBps = point.bandwidth_GBps();
    if (point.mode == LinkMode::bandwidth)
      (point.source_rank == fit.first_rank ? fit.forward_GBps : fit.backward_GBps) =
          point.bandwidth_GBps();
  }
  fit.bandwidth_GBps = std::min(fit.forward_GBps, fit.backward_GBps);
  const LinkPoint& any = points.front();
  const bool first_is_source = any.source_rank == pair.first;
  fit.first_host = first_is_source ? any.source_host : any.destination_host;
  fit.second_host = first_is_source ? any.destination_host : any.source_host;
  fit.kind = any.kind;
  fit.transport = any.transport;
  return fit;
}

void name_slow(LinkAnalysis& analysis, LinkKind kind, double shortfall, bool by_rank) {
  std::map<int, int> index_of;  // rank -> its index among this kind's ends
  std::vector<std::string> names;
  const auto participant = [&](int rank, const std::string& host) {
    const auto [found, added] = index_of.try_emplace(rank, static_cast<int>(names.size()));
    if (added) names.push_back(rank_name(rank, host, by_rank));
    return found->second;
  };
  std::vector<std::size_t> members;
  std::vector<LinkSpeed> speeds;
  for (std::size_t i = 0; i < analysis.fits.size(); ++i) {
    const LinkFit& fit = analysis.fits[i];
    if (fit.kind != kind || !(fit.bandwidth_GBps > 0)) continue;
    members.push_back(i);
    speeds.push_back({participant(fit.first_rank, fit.first_host),
                      participant(fit.second_rank, fit.second_host), fit.bandwidth_GBps});
  }
  const LinkOutliers outliers =
      find_link_outliers(speeds, static_cast<int>(names.size()), shortfall);
  for (const std::size_t link : outliers.links) analysis.fits[members[link]].slow = true;
  for (const int host : outliers.hosts)
    analysis.slow_hosts.push_back(
        {names[host], kind, outliers.typical_speeds[host], outliers.median_host_speed});
}

}  // namespace

LinkAnalysis analyse_links(std::span<const LinkPoint> points, double shortfall) {
  std::vector<RankPair> order;
  std::map<RankPair, std::vector<LinkPoint>> by_pair;
  for (const LinkPoint& point : points) {
    const RankPair pair = pair_of(point);
    if (!by_pair.contains(pair)) order.push_back(pair);
    by_pair[pair].push_back(point);
  }
  LinkAnalysis analysis;
  for (const RankPair& pair : order)
    if (auto fit = model_of(pair, by_pair[pair])) analysis.fits.push_back(std::move(*fit));
  const bool by_rank = named_by_rank(analysis.fits);
  for (const LinkKind kind : {LinkKind::inter, LinkKind::intra})
    name_slow(analysis, kind, shortfall, by_rank);
  return analysis;
}

bool named_by_rank(std::span<const LinkFit> fits) {
  std::map<std::string, std::set<int>> ranks_of_host;
  for (const LinkFit& fit : fits) {
    ranks_of_host[fit.first_host].insert(fit.first_rank);
    ranks_of_host[fit.second_host].insert(fit.second_rank);
  }
  return std::any_of(ranks_of_host.begin(), ranks_of_host.end(),
                     [](const auto& host) { return host.second.size() > 1; });
}

std::string pair_label(const LinkFit& fit, bool by_rank) {
  return fmt::format("{} <-> {}", rank_name(fit.first_rank, fit.first_host, by_rank),
                     rank_name(fit.second_rank, fit.second_host, by_rank));
}

}  // namespace collbench
