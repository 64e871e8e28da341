#include "harness/stats/stragglers.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "harness/stats/sampling_distributions.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

// Holm's step-down adjustment of the candidates' p-values; appends those at most `alpha`.
void keep_significant(std::vector<Straggler> candidates, double alpha,
                      std::vector<Straggler>& named) {
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].p_value < candidates[b].p_value;
  });
  double adjusted = 0;
  for (std::size_t step = 0; step < order.size(); ++step) {
    double& p = candidates[order[step]].p_value;
    adjusted = std::max(adjusted, std::min(1.0, static_cast<double>(order.size() - step) * p));
    p = adjusted;
  }
  for (Straggler& candidate : candidates)
    if (candidate.p_value <= alpha) named.push_back(std::move(candidate));
}

// The median over points of the largest lag among `columns`.
double median_lag(const std::vector<std::vector<double>>& lags_s,
                  const std::vector<std::size_t>& columns) {
  std::vector<double> latest;
  for (const auto& point : lags_s) {
    double lag = point[columns.front()];
    for (std::size_t column : columns) lag = std::max(lag, point[column]);
    latest.push_back(lag);
  }
  return median_by_selection(latest);
}

// The host of a point's typical latest: every column tied for latest most often is on it, and
// one of them is behind by the margin. Were ties broken at random the host would get the point,
// so with ranks alike its chance stays at most its share of the ranks.
std::optional<std::size_t> typical_last_host(const PointEvidence& evidence,
                                             const std::vector<std::size_t>& host_of) {
  const auto& tied = evidence.latest_most_often;
  if (tied.empty()) return std::nullopt;
  const std::size_t host = host_of[tied.front()];
  const bool one_host = std::all_of(tied.begin(), tied.end(),
                                    [&](std::size_t column) { return host_of[column] == host; });
  const bool behind = std::any_of(tied.begin(), tied.end(),
                                  [&](std::size_t column) { return evidence.behind(column); });
  if (one_host && behind) return host;
  return std::nullopt;
}

}  // namespace

StragglerSearch::Columns::Columns(StragglerKind kind, std::span<const int> world_ranks,
                                  std::span<const std::string> column_hosts)
    : kind(kind),
      world_ranks(world_ranks.begin(), world_ranks.end()),
      times_last(world_ranks.size()),
      points_last(world_ranks.size()) {
  for (const std::string& host : column_hosts) {
    const auto found = std::find(hosts.begin(), hosts.end(), host);
    host_of.push_back(static_cast<std::size_t>(found - hosts.begin()));
    if (found == hosts.end()) hosts.push_back(host);
  }
  host_points_last.assign(hosts.size(), 0);
}

Straggler StragglerSearch::Columns::row(int rank, const std::string& host, double chance) const {
  return {.rank = rank,
          .host = host,
          .kind = kind,
          .ranks = size(),
          .points = points(),
          .samples = samples,
          .chance = chance};
}

StragglerSearch::StragglerSearch(StragglerThresholds thresholds) : thresholds_(thresholds) {}

void StragglerSearch::add(StragglerKind kind, std::span<const int> world_ranks,
                          std::span<const std::string> hosts, std::span<const double> values,
                          double median_s, double clock_error_s) {
  if (hosts.size() != world_ranks.size())
    throw std::invalid_argument("StragglerSearch::add: one host per column expected");
  const PointEvidence evidence =
      point_evidence(values, world_ranks.size(), kind, median_s, clock_error_s, thresholds_.margin);
  auto found = std::find_if(columns_.begin(), columns_.end(), [&](const Columns& columns) {
    return columns.kind == kind && std::ranges::equal(columns.world_ranks, world_ranks);
  });
  if (found == columns_.end())
    found = columns_.insert(columns_.end(), Columns(kind, world_ranks, hosts));
  Columns& columns = *found;
  columns.samples += evidence.samples;
  for (std::size_t column = 0; column < world_ranks.size(); ++column) {
    columns.times_last[column] += evidence.times_last[column];
    if (evidence.typical_last(column)) ++columns.points_last[column];
  }
  if (const auto host = typical_last_host(evidence, columns.host_of))
    ++columns.host_points_last[*host];
  columns.lags_s.push_back(evidence.lag_s);
}

void StragglerSearch::name_ranks(const Columns& columns, std::vector<Straggler>& named) const {
  std::vector<Straggler> candidates;
  const double chance = 1.0 / columns.size();
  for (std::size_t column = 0; column < columns.world_ranks.size(); ++column) {
    Straggler rank =
        columns.row(columns.world_ranks[column], columns.hosts[columns.host_of[column]], chance);
    rank.points_last = columns.points_last[column];
    rank.times_last = columns.times_last[column];
    rank.p_value = binomial_upper_tail(rank.points_last, rank.points, chance);
    rank.median_lag_s = median_lag(columns.lags_s, {column});
    candidates.push_back(std::move(rank));
  }
  keep_significant(std::move(candidates), thresholds_.alpha, named);
}

void StragglerSearch::name_hosts(const Columns& columns, std::vector<Straggler>& named) const {
  std::vector<Straggler> candidates;
  for (std::size_t host = 0; host < columns.hosts.size(); ++host) {
    std::vector<std::size_t> on_host;
    for (std::size_t column = 0; column < columns.host_of.size(); ++column)
      if (columns.host_of[column] == host) on_host.push_back(column);
    if (static_cast<int>(on_host.size()) == columns.size()) continue;
    Straggler row = columns.row(Straggler::kHostRow, columns.hosts[host],
                                static_cast<double>(on_host.size()) / columns.size());
    row.points_last = columns.host_points_last[host];
    for (std::size_t column : on_host) row.times_last += columns.times_last[column];
    row.p_value = binomial_upper_tail(row.points_last, row.points, row.chance);
    row.median_lag_s = median_lag(columns.lags_s, on_host);
    candidates.push_back(std::move(row));
  }
  keep_significant(std::move(candidates), thresholds_.alpha, named);
}

StragglerRecord StragglerSearch::record() const {
  StragglerRecord record;
  record.thresholds = thresholds_;
  for (const Columns& columns : columns_) {
    name_ranks(columns, record.named);
    name_hosts(columns, record.named);
    // Each point is tested once per kind.
    if (columns.kind == StragglerKind::finishes_last) record.points += columns.points();
  }
  return record;
}

}  // namespace collbench
