#pragma once
// `collbench compare`, point by point: which points of runs are the same measurement, and how
// NEW's time compares with BASE's within the two launches.
//
// Within one launch per side (a pair of files and nothing else; compare_files.h): a sample's time
// is the slowest rank's; r = median(NEW) / median(BASE). Two intervals of r are joined: a
// percentile bootstrap of the samples, and r · exp(±h), h the half-width that the spread between
// the files' rounds gives log r (run_noise_halfwidth). Rounds seconds apart inside one process
// do not see what varies between launches, so `compare` reports this interval with the ratio but
// does not judge by it (launch_verdicts.h judges launches); the rule below is what the samples
// alone would say. With threshold t, on the joined `confidence` interval [lo, hi]:
//   SLOWER  lo > 1 + t              (the whole interval beyond the threshold, slower side)
//   FASTER  hi < 1 / (1 + t)        (symmetric on a log scale: 5% slower and 1/1.05 faster)
//   NOISY   h > log(1 + t)          (the runs' own spread is wider than the threshold: no
//                                    number of samples inside a run could tell SAME)
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
#include "harness/stats/no_value.h"

namespace collbench {

// A comparison's verdict (check's PASS/WARN/FAIL are harness/check/verdicts.h's Verdict).
enum class Change { same, faster, slower, unsure, noisy };
std::string_view name(Change verdict);  // "SAME", "FASTER", "SLOWER", "UNSURE", "NOISY"
int severity(Change verdict);           // 0 same or faster, 1 unsure or noisy, 2 slower

struct CompareOptions {
  double threshold = 0.05;   // minimum effect: 5% slower, or faster by 1/1.05
  double confidence = 0.95;  // of the bootstrap interval of the ratio
  int replicates = 2000;
  std::uint64_t seed = 1;
  std::size_t min_samples = 5;  // per side; fewer: UNSURE
  // A side with more samples enters the bootstrap thinned to every k-th sample (time order),
  // which only widens the interval (conservative); the medians in the ratio itself use every
  // sample.
  std::size_t max_bootstrap_samples = 5000;
};

// The verdict of a ratio interval (NEW/BASE, a time ratio: above 1 is slower), given the
// half-width on a log scale that the noise between runs contributes to it.
Change verdict_of_interval(const Interval& ratio, double threshold, double run_noise = 0);

// The half-width, on a log scale, of the `confidence` interval of log(NEW/BASE) that the noise
// between runs gives, from the rounds' medians (Student's t: a few rounds are all there is):
// Welch's t over both files' rounds; one side's spread for both when only that side has rounds;
// 0 when neither side shows a spread (one round per point): within-run noise is all it knows.
double run_noise_halfwidth(std::span<const double> base_round_medians,
                           std::span<const double> new_round_medians, double confidence);

struct RatioResult {
  std::size_t base_samples = 0;
  std::size_t new_samples = 0;
  double base_median_s = 0;
  double new_median_s = 0;
  double ratio = 0;  // new median / base median; NaN when a median is missing or not positive
  Interval ratio_ci;  // NaN ends when not computed (too few samples)
  double run_noise = 0;  // the half-width between runs adds: 0 when no spread was seen
  std::size_t baselines = 1;  // files holding the point, BASE and the earlier ones
  std::size_t launches = 0;   // against a history: those since its last change point
  double p_value = kNoValue;  // against a history: two-sided, no change
  std::size_t base_rounds = 1;
  std::size_t new_rounds = 1;
  Change verdict = Change::unsure;
  std::string reason;  // why UNSURE when it is not the interval's doing; else empty
};

// The verdict on two sample sets (seconds). `stream` selects an independent random stream for
// this comparison (the same seed and stream give the same interval on every platform).
RatioResult compare_samples(std::span<const double> base, std::span<const double> now,
                            const CompareOptions& options, std::uint64_t stream = 0);

// The point's identity for matching: its JSON key (key_json, with the size actually run), every
// PointKey field but the element count, which follows from them; without the backend when
// `ignore_backend`.
std::string match_key(const PointKey& key, bool ignore_backend);

struct PointMatch {
  std::vector<std::pair<std::size_t, std::size_t>> matched;  // (base index, new index)
  std::vector<std::size_t> base_only;
  std::vector<std::size_t> new_only;
  bool ignore_backend = false;  // as matched
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
