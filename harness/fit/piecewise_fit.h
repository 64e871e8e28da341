#pragma once
// A piecewise Hockney model of one curve: T(n) = alpha_k + beta_k·n on segment k. Breakpoints
// come from the data (protocol and algorithm switches are jumps or kinks), found by an exact
// dynamic program over contiguous segments; the number of segments by BIC, each breakpoint
// weighing as three coefficients.
#include <cstddef>
#include <span>
#include <vector>

#include "harness/fit/affine_fit.h"

namespace collbench {

struct PiecewiseOptions {
  std::size_t max_segments = 5;
  std::size_t min_sizes_per_segment = 3;
};

struct Segment {
  std::size_t first = 0;  // index of the first size of the segment (sizes sorted ascending)
  std::size_t last = 0;   // index of the last size, inclusive
  AffineFit fit;
};

struct PiecewiseFit {
  std::vector<Segment> segments;
  double bic = 0;
};

// sizes ascending and distinct; times the per-size medians. Throws std::invalid_argument for
// fewer than 2 sizes or mismatched spans.
PiecewiseFit fit_piecewise(std::span<const double> sizes, std::span<const double> times,
                           const PiecewiseOptions& options = {});

// Fits the same segmentation to other times (a bootstrap replicate): same first/last indexes.
PiecewiseFit refit_segments(const PiecewiseFit& shape, std::span<const double> sizes,
                            std::span<const double> times);

}  // namespace collbench
