#pragma once
// Student's t distribution, for intervals over a handful of rounds or runs, where the normal
// approximation is far too narrow (2 degrees of freedom: 4.30 standard errors, not 1.96).
namespace collbench {

// P(T <= t) for T ~ t(df), df > 0 (not necessarily whole: Welch's degrees of freedom).
double student_t_cdf(double t, double df);

// The t with P(T <= t) = p, for p in (0, 1) and df > 0.
double student_t_quantile(double p, double df);

}  // namespace collbench
