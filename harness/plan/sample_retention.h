#pragma once
// What the record keeps of a point's raw samples (--keep-samples). The point's statistics and
// its per-rank medians always come from every sample; what is kept is for later analyses
// (compare's bootstrap, the distribution figure) and for readers. At a thousand ranks every
// sample of every rank is tens of gigabytes a sweep; a thousand evenly spaced samples per point
// keep the distribution, its tails to the 0.1% quantile and the drift across the point.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "harness/plan/point.h"

namespace collbench {

enum class KeepSamples {
  all,      // every sample of every rank
  capped,   // at most kCappedSamples samples of every rank, evenly spaced over the point
  summary,  // none: the /points row and the per-rank medians
};

inline constexpr std::size_t kCappedSamples = 1000;

std::string_view name(KeepSamples keep);
std::optional<KeepSamples> parse_keep_samples(std::string_view text);

// min(count, kept) of `count` rows, evenly spaced: row floor(j * count / k) for j < k.
std::vector<std::size_t> evenly_spaced_rows(std::size_t count, std::size_t kept);

// What one round of a point measured in `rounds` sends to rank 0: at most this many rows
// (none: every row), so that the point's rows stay within what `keep` keeps.
std::optional<std::size_t> rows_per_round(KeepSamples keep, int rounds);

// The rows of `raw` that `keep` keeps, in order, with the rounds' starts mapped onto them.
RawSamples kept_samples(const RawSamples& raw, KeepSamples keep);

}  // namespace collbench
