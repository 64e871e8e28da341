#pragma once
// Confidence intervals that include misfit. Each replicate moves every size's time twice: by
// its held-out error (the model, fitted without that size, against it) with a random sign, put
// back on the model's time there (a wild bootstrap over the misses), and by how far its median
// moves when its raw samples are resampled. The replicate is fitted afresh (breakpoints chosen
// again, the segment count kept), and the 2.5% and 97.5% percentiles of each quantity over
// replicates bound it. A model that misses sizes gets intervals as wide as its misses; on a
// curve it fits, the noise within a size is counted in both moves, which makes the intervals
// conservative (fit_suite_test measures by how much). Skewed quantities (n½ = alpha/beta) get
// percentile intervals too. Every interval holds the fit's own value, stretched to reach it
// where the replicates all fall on one side of it.
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "harness/fit/piecewise_fit.h"
#include "harness/stats/interval.h"
#include "harness/stats/uniform_index.h"

namespace collbench {

// A replicate's time never falls below this share of the model's: a held-out error of -100%
// or worse would otherwise give a time of zero or less, which no fit takes.
inline constexpr double kSmallestShare = 0.05;

// The 2.5% and 97.5% percentiles of `values` (numpy.percentile's default interpolation); an
// infinite value among them gives an infinite end, never NaN.
Interval central_95(std::vector<double> values);

// n½ = alpha / beta, the size below which the latency term dominates, never negative: 0 without
// a latency term (alpha at its bound 0), infinite where the time does not grow with size (beta
// <= 0: the latency term dominates every size). A bootstrap whose betas cross 0 then gives n½
// an interval that is unbounded above, as it gives the bandwidth one, never a negative end.
double half_size_of(double alpha_s, double beta_s_per_byte);

struct SegmentIntervals {
  Interval alpha_s;
  Interval beta_s_per_byte;
  Interval half_size_bytes;  // of half_size_of over the replicates
};

struct CurveIntervals {
  std::vector<SegmentIntervals> segments;  // per segment of the fit
  // The curve's headline: alpha of its first segment (small messages), beta of its last
  // (large messages), and n½ between them.
  SegmentIntervals headline;
};

// `fit` from fit_piecewise on these sizes (held-out errors included); samples[i] the raw sample
// times (seconds) of sizes[i], or empty where none are kept.
CurveIntervals bootstrap_intervals(const PiecewiseFit& fit, std::span<const double> sizes,
                                   std::span<const std::vector<double>> samples, int replicates,
                                   std::uint64_t seed);

}  // namespace collbench
