#pragma once
// Confidence intervals of fitted parameters by bootstrap over the stored raw samples: each
// replicate resamples every size's samples with replacement, takes the medians again, refits
// the segmentation found on the data, and the 2.5% and 97.5% percentiles of each parameter
// over replicates bound it. Skewed quantities (n½ = alpha/beta) get percentile intervals too.
#include <cstdint>
#include <span>
#include <vector>

#include "harness/fit/piecewise_fit.h"

namespace collbench {

struct Interval {
  double low = 0;
  double high = 0;
};

struct SegmentIntervals {
  Interval alpha_s;
  Interval beta_s_per_byte;
  Interval half_size_bytes;  // n½ = alpha / beta
};

// samples[i] are the raw sample times (seconds) of sizes[i].
std::vector<SegmentIntervals> bootstrap_intervals(const PiecewiseFit& fit,
                                                  std::span<const double> sizes,
                                                  std::span<const std::vector<double>> samples,
                                                  int replicates, std::uint64_t seed);

}  // namespace collbench
