#pragma once
// A piecewise Hockney model of one curve: T(n) = alpha_k + beta_k·n on segment k. Breakpoints
// come from the data (protocol and algorithm switches are jumps or kinks), found by an exact
// dynamic program over contiguous segments. The number of segments is chosen out of sample:
// every size is predicted by the model fitted without it (leave one size out), and a further
// segment is kept only when it cuts that prediction error by a clear factor: a protocol switch
// does, tenfold and more, while a smooth bend does by less than two, and so does not buy a
// chain of tangent lines.
#include <cstddef>
#include <span>
#include <vector>

#include "harness/fit/affine_fit.h"

namespace collbench {

struct PiecewiseOptions {
  std::size_t max_segments = 5;
  std::size_t min_sizes_per_segment = 3;
  // A further segment stays when it divides the mean held-out error by at least this. Measured
  // on the synthetic curves of fit_suite_test and piecewise_fit_test: at 2 a saturating
  // bandwidth ramp gains a third segment in 1 seed of 100; at 3 the middle of three protocols
  // is missed in 41.
  double required_gain = 2.5;
};

struct Segment {
  std::size_t first = 0;  // index of the first size of the segment (sizes sorted ascending)
  std::size_t last = 0;   // index of the last size, inclusive
  AffineFit fit;
};

struct PiecewiseFit {
  std::vector<Segment> segments;
  // Per size: (time predicted without it - time) / time, with the chosen segment count; empty
  // where the curve is too short to leave a size out.
  std::vector<double> held_out_errors;
  // The per-size times it was fitted to.
  std::vector<double> times;
  // The median of their magnitudes: how far the model misses a size it did not see.
  double misfit() const;
};

// sizes ascending and distinct; times the per-size medians. Throws std::invalid_argument for
// fewer than 2 sizes or mismatched spans.
PiecewiseFit fit_piecewise(std::span<const double> sizes, std::span<const double> times,
                           const PiecewiseOptions& options = {});

// The best fit with exactly `count` segments (fewer where the curve is too short), breakpoints
// chosen afresh; no held-out errors. For bootstrap replicates.
PiecewiseFit fit_segments(std::span<const double> sizes, std::span<const double> times,
                          std::size_t count, const PiecewiseOptions& options = {});

// The model's time at `size`: from the segment that covers it or, between or beyond segments,
// the nearest one on a log scale. `sizes` are the ones the fit was made on.
double predict(const PiecewiseFit& fit, std::span<const double> sizes, double size);

}  // namespace collbench
