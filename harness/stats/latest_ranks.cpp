#include "harness/stats/latest_ranks.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

// The median of a sorted row without the element at `skipped`: the row's p - 1 others.
double median_without(std::span<const double> sorted, std::size_t skipped) {
  const std::size_t others = sorted.size() - 1;
  const auto at = [&](std::size_t index) { return sorted[index < skipped ? index : index + 1]; };
  if (others % 2 == 1) return at(others / 2);
  return 0.5 * (at(others / 2 - 1) + at(others / 2));
}

// The column that alone holds the row's largest value, if one does.
std::optional<std::size_t> sole_latest(std::span<const double> row) {
  const auto latest = std::max_element(row.begin(), row.end());
  if (std::count(row.begin(), row.end(), *latest) > 1) return std::nullopt;
  return static_cast<std::size_t>(latest - row.begin());
}

}  // namespace

std::string_view name(StragglerKind kind) {
  switch (kind) {
    case StragglerKind::finishes_last:
      return "finishes_last";
    case StragglerKind::starts_late:
      return "starts_late";
  }
  return "?";
}

std::optional<StragglerKind> parse_straggler_kind(std::string_view text) {
  for (StragglerKind kind : kStragglerKinds)
    if (text == name(kind)) return kind;
  return std::nullopt;
}

PointEvidence point_evidence(std::span<const double> values, std::size_t columns,
                             StragglerKind kind, double median_s, double clock_error_s,
                             const LagMargin& margin) {
  if (columns < 2 || values.size() % columns != 0)
    throw std::invalid_argument(
        "point_evidence: a [sample x column] matrix of two columns or more");
  // Two clocks cannot order ends closer than their error.
  const double floor_s =
      std::isfinite(clock_error_s) ? std::max(margin.floor_s, clock_error_s) : margin.floor_s;
  PointEvidence evidence;
  evidence.samples = values.size() / columns;
  evidence.times_last.assign(columns, 0);
  std::vector<std::vector<double>> lags(columns, std::vector<double>(evidence.samples));
  std::vector<std::size_t> order(columns);
  std::vector<double> sorted(columns);
  for (std::size_t sample = 0; sample < evidence.samples; ++sample) {
    const auto row = values.subspan(sample * columns, columns);
    // Ranks that wait for t0 start within their spin's jitter (0.01 us here): which of them
    // started latest says nothing until one is late by the floor.
    if (const auto latest = sole_latest(row))
      if (kind == StragglerKind::finishes_last || row[*latest] > floor_s)
        ++evidence.times_last[*latest];
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return row[a] < row[b]; });
    for (std::size_t position = 0; position < columns; ++position)
      sorted[position] = row[order[position]];
    for (std::size_t position = 0; position < columns; ++position)
      lags[order[position]][sample] = sorted[position] - median_without(sorted, position);
  }
  for (auto& lag : lags) evidence.lag_s.push_back(median_by_selection(lag));

  const std::size_t most =
      *std::max_element(evidence.times_last.begin(), evidence.times_last.end());
  for (std::size_t column = 0; most > 0 && column < columns; ++column)
    if (evidence.times_last[column] == most) evidence.latest_most_often.push_back(column);
  evidence.margin_s = std::max(floor_s, margin.share * median_s);
  return evidence;
}

}  // namespace collbench
