#pragma once
// The distributions of statistics over a handful of rounds or runs, where the normal
// approximation is far off (Student's t with 2 degrees of freedom: 4.30 standard errors, not 1.96).
#include <cstddef>

namespace collbench {

// P(T <= t) for T ~ t(df), df > 0 (not necessarily whole: Welch's degrees of freedom).
double student_t_cdf(double t, double df);

// The t with P(T <= t) = p, for p in (0, 1) and df > 0.
double student_t_quantile(double p, double df);

// P(X <= x) for X ~ chi-squared(df), df > 0.
double chi_squared_cdf(double x, double df);

// The x with P(X <= x) = p, for p in (0, 1) and df > 0.
double chi_squared_quantile(double p, double df);

// P(X >= k) for X ~ Binomial(n, p), p in [0, 1].
double binomial_upper_tail(std::size_t k, std::size_t n, double p);

}  // namespace collbench
