#pragma once
// T(n) = alpha + beta·n on one range of sizes: weighted least squares on relative error with a
// Huber loss (iteratively reweighted), so that the smallest sizes count as much as the largest
// and a stray median does not drag the line. A latency term is never negative: where the best
// line would cross zero above n = 0 (a range whose bandwidth falls with size), the fit is
// T = beta·n instead, alpha 0 at its bound.
#include <cstddef>
#include <span>

namespace collbench {

struct AffineFit {
  double alpha_s = 0;          // intercept: the latency term, seconds (>= 0)
  bool alpha_at_bound = false;  // the unconstrained line had a negative intercept
  double beta_s_per_byte = 0;  // slope: seconds per byte (1/beta is the bandwidth)
  double rms_rel_error = 0;    // of the fit against the times it was fitted to
  double max_rel_error = 0;
  double loss = 0;  // Huber loss of relative residuals: the cost segments compare
};

// sizes in bytes and times in seconds (> 0), same length >= 2, sizes not all equal; throws
// std::invalid_argument otherwise. The Huber threshold is 1.345 times a robust scale (MAD) of
// this range's own relative residuals.
AffineFit fit_affine(std::span<const double> sizes, std::span<const double> times);

// The same with the scale given (relative units, e.g. 0.01 for 1% noise): the Huber threshold is
// then 1.345·relative_scale whatever the range, so that the losses of ranges of one curve, each
// fitted with the curve's scale, compare.
AffineFit fit_affine(std::span<const double> sizes, std::span<const double> times,
                     double relative_scale);

}  // namespace collbench
