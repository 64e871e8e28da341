#pragma once
// The median of a bootstrap resample (n draws with replacement) of n sorted values, drawn at a
// cost that does not grow with n. The resample's k-th smallest value is sorted[I(k)], the k-th
// smallest of its n indices, and I(k) = floor(n·U(k)) for U(k) the k-th smallest of n uniforms,
// which is Beta(k, n - k + 1); the next one, U(k+1), lies above it by (1 - U(k)) times the
// least of the n - k uniforms left. Exact, as drawing n indices is, in distribution; the draws
// differ from those of drawing n indices.
#include <random>
#include <span>

namespace collbench {

// numpy.median of the resample: the mean of the two middle values when n is even. `sorted`
// ascending and not empty.
double resampled_median(std::span<const double> sorted, std::mt19937_64& engine);

}  // namespace collbench
