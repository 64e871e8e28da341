#pragma once
// `collbench compare`, point by point: which points of two runs are the same measurement, and
// whether NEW is slower, faster or the same as BASE at each, judged on the raw samples.
//
// The rule (README, "Comparing runs"): a sample's time is the slowest rank's; r = median(NEW) /
// median(BASE); a percentile bootstrap (each side's samples resampled independently, medians
// retaken) gives a `confidence` interval [lo, hi] of r. With threshold t:
//   SLOWER  lo > 1 + t              (the whole interval beyond the threshold, slower side)
//   FASTER  hi < 1 / (1 + t)        (symmetric on a log scale: 5% slower and 1/1.05 faster)
//   SAME    1/(1 + t) <= lo and hi <= 1 + t
//   UNSURE  otherwise, and whenever a side has fewer than `min_samples` samples.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/fit/bootstrap.h"
#include "harness/plan/point.h"

namespace collbench {

// A comparison's verdict (check's PASS/WARN/FAIL are harness/check/verdicts.h's Verdict).
enum class Change { same, faster, slower, unsure };
std::string_view name(Change verdict);  // "SAME", "FASTER", "SLOWER", "UNSURE"
int severity(Change verdict);           // 0 same or faster, 1 unsure, 2 slower

struct CompareOptions {
  double threshold = 0.05;   // minimum effect: 5% slower, or faster by 1/1.05
  double confidence = 0.95;  // of the bootstrap interval of the ratio
  int replicates = 2000;
  std::uint64_t seed = 1;
  std::size_t min_samples = 5;  // per side; fewer: UNSURE
  // A side with more samples enters the bootstrap thinned to every k-th sample (time order),
  // which only widens the interval (conservative) and bounds the cost; the medians in the
  // ratio itself use every sample.
  std::size_t max_bootstrap_samples = 5000;
};

// The verdict of a ratio interval (NEW/BASE, a time ratio: above 1 is slower).
Change verdict_of_interval(const Interval& ratio, double threshold);

struct RatioResult {
  std::size_t base_samples = 0;
  std::size_t new_samples = 0;
  double base_median_s = 0;
  double new_median_s = 0;
  double ratio = 0;  // new median / base median; NaN when a median is missing or not positive
  Interval ratio_ci;  // NaN ends when not computed (too few samples)
  Change verdict = Change::unsure;
  std::string reason;  // why UNSURE when it is not the interval's doing; else empty
};

// The verdict on two sample sets (seconds). `stream` selects an independent random stream for
// this comparison (the same seed and stream give the same interval on every platform).
RatioResult compare_samples(std::span<const double> base, std::span<const double> now,
                            const CompareOptions& options, std::uint64_t stream = 0);

// Per sample, the slowest column's time: what the point's Summary is built from.
std::vector<double> slowest_rank_times(const RawSamples& raw);

// The point's identity for matching: every PointKey field (size = the size actually run) but the
// element count, which follows from them; without the backend when `ignore_backend`.
std::string match_key(const PointKey& key, bool ignore_backend);

struct PointMatch {
  std::vector<std::pair<std::size_t, std::size_t>> matched;  // (base index, new index)
  std::vector<std::size_t> base_only;
  std::vector<std::size_t> new_only;
};

// Pairs equal keys in file order (a key twice on one side pairs with the other side's second);
// the rest is listed per side.
PointMatch match_points(std::span<const PointResult> base, std::span<const PointResult> now,
                        bool ignore_backend);

struct PointComparison {
  PointKey key;  // BASE's
  RatioResult result;
};

// Every matched pair compared; each point's random stream comes from its key, so a point's
// verdict does not depend on which other points the files hold.
std::vector<PointComparison> compare_points(std::span<const PointResult> base,
                                            std::span<const PointResult> now,
                                            const PointMatch& match, const CompareOptions& options);

}  // namespace collbench
