#pragma once
// `collbench compare`, fit by fit: each curve fitted in both files has its latency term alpha
// (from the segment of the smallest sizes) and its inverse bandwidth beta (from the segment of
// the largest sizes) compared through their stored 95% bootstrap intervals.
//
// Both are costs (larger is slower), so the ratio NEW/BASE reads as a time ratio. Its interval
// is the conservative [new.low / base.high, new.high / base.low] (every pair of values the two
// intervals allow), judged by the points' rule (compare_points.h, verdict_of_interval): SLOWER
// only when the intervals separate by more than the threshold in the slower direction. A
// parameter the fit flags as untrusted on either side (or a curve not fitted) is UNSURE.
#include <optional>
#include <string>
#include <vector>

#include "harness/compare/compare_points.h"
#include "harness/fit/curve_fits.h"

namespace collbench {

enum class FitParameter { alpha, beta };
std::string_view name(FitParameter parameter);  // "alpha", "beta"

struct FitSide {
  double value = 0;  // seconds (alpha) or seconds per byte (beta)
  Interval ci;
  std::size_t min_size_bytes = 0;  // the segment's size range
  std::size_t max_size_bytes = 0;
  bool trusted = false;
};

struct FitComparison {
  PointKey key;  // curve key (size and count zero), BASE's
  FitParameter parameter = FitParameter::alpha;
  FitSide base;
  FitSide now;
  double ratio = 0;  // new / base; NaN when either side has no usable value
  Interval ratio_ci;
  Change verdict = Change::unsure;
  std::string reason;  // why UNSURE when it is not the interval's doing
};

struct FitComparisons {
  std::vector<FitComparison> comparisons;  // two per curve present in both: alpha, beta
  std::vector<PointKey> base_only;         // curves fitted only in BASE
  std::vector<PointKey> new_only;
};

FitComparisons compare_fits(const ModelReport& base, const ModelReport& now, double threshold,
                            bool ignore_backend);

}  // namespace collbench
