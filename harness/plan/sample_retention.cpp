#include "harness/plan/sample_retention.h"

#include <algorithm>

namespace collbench {

std::string_view name(KeepSamples keep) {
  switch (keep) {
    case KeepSamples::all: return "all";
    case KeepSamples::capped: return "capped";
    case KeepSamples::summary: return "summary";
  }
  return "?";
}

std::optional<KeepSamples> parse_keep_samples(std::string_view text) {
  for (KeepSamples keep : {KeepSamples::all, KeepSamples::capped, KeepSamples::summary})
    if (text == name(keep)) return keep;
  return std::nullopt;
}

std::vector<std::size_t> evenly_spaced_rows(std::size_t count, std::size_t kept) {
  const std::size_t k = std::min(count, kept);
  std::vector<std::size_t> rows;
  for (std::size_t j = 0; j < k; ++j) rows.push_back(j * count / k);
  return rows;
}

std::optional<std::size_t> rows_per_round(KeepSamples keep, int rounds) {
  switch (keep) {
    case KeepSamples::all: return std::nullopt;
    case KeepSamples::capped: return kCappedSamples / static_cast<std::size_t>(std::max(rounds, 1));
    case KeepSamples::summary: return 0;
  }
  return std::nullopt;
}

RawSamples kept_samples(const RawSamples& raw, KeepSamples keep) {
  const std::size_t count = raw.sample_count();
  const std::size_t kept = keep == KeepSamples::summary ? 0
                           : keep == KeepSamples::capped ? std::min(count, kCappedSamples)
                                                         : count;
  if (kept == count) return raw;
  RawSamples out;
  out.nranks = raw.nranks;
  out.world_ranks = raw.world_ranks;
  out.round_starts.clear();
  const auto ranks = static_cast<std::size_t>(raw.nranks);
  const auto copy_row = [ranks](const std::vector<double>& from, std::size_t row,
                                std::vector<double>& to) {
    if (from.empty()) return;
    const auto first = from.begin() + static_cast<std::ptrdiff_t>(row * ranks);
    to.insert(to.end(), first, first + static_cast<std::ptrdiff_t>(ranks));
  };
  auto next_round = raw.round_starts.begin();
  const std::vector<std::size_t> rows = evenly_spaced_rows(count, kept);
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const std::size_t row = rows[j];
    // A round whose rows were all skipped starts where the next kept row does.
    for (; next_round != raw.round_starts.end() && *next_round <= row; ++next_round)
      if (out.round_starts.empty() || out.round_starts.back() != j) out.round_starts.push_back(j);
    copy_row(raw.per_rank_seconds, row, out.per_rank_seconds);
    copy_row(raw.start_lateness_seconds, row, out.start_lateness_seconds);
  }
  if (out.round_starts.empty()) out.round_starts.push_back(0);
  return out;
}

}  // namespace collbench
