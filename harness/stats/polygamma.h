#pragma once
// The log-gamma function's derivatives, for the moments of log sample variances
// (moderated_variance.h): a sample variance on d degrees of freedom has E[log s²] =
// log σ² + ψ(d/2) − log(d/2) and Var[log s²] = ψ'(d/2).
namespace collbench {

double digamma(double x);     // ψ(x), x > 0
double trigamma(double x);    // ψ'(x), x > 0
double tetragamma(double x);  // ψ''(x), x > 0
// The x > 0 with trigamma(x) = y, y > 0 (Newton's method as limma's trigammaInverse).
double trigamma_inverse(double y);

}  // namespace collbench
