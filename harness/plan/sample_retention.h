#pragma once
// What the record keeps of a point's raw samples (--keep-samples). The point's statistics and
// its per-rank medians always come from every sample; what is kept is for later analyses
// (compare's bootstrap, the distribution figure) and for readers. At a thousand ranks every
// sample of every rank is tens of gigabytes a sweep; a thousand evenly spaced samples per point
// keep the distribution, its tails to the 0.1% quantile and the drift across the point.
#include <cstddef>
#include <optional>
#include <string_view>

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

// The rows of `raw` that `keep` keeps, in order, with the rounds' starts mapped onto them.
RawSamples kept_samples(const RawSamples& raw, KeepSamples keep);

}  // namespace collbench
