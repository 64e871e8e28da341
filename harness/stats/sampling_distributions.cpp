#include "harness/stats/sampling_distributions.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace collbench {
namespace {

constexpr double kNoStep = -1;  // outside every bracket: bisect

// The continued fraction of the regularised incomplete beta function (modified Lentz), which
// converges fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double fraction = d;
  for (int m = 1; m <= 1000; ++m) {
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    for (const double term : {even, -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))}) {
      d = 1 + term * d;
      if (std::abs(d) < kTiny) d = kTiny;
      c = 1 + term / c;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1 / d;
      fraction *= d * c;
    }
    if (std::abs(d * c - 1) < kEpsilon) break;
  }
  return fraction;
}

// I_x(a, b).
double regularised_incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

// P(a, x), the regularised lower incomplete gamma function: its power series, which converges
// for every x (in about x terms), and the degrees of freedom here are those of a few rounds.
double regularised_lower_gamma(double a, double x) {
  if (x <= 0) return 0;
  double term = 1 / a, sum = term;
  for (int n = 1; n < 10000 && term > 1e-16 * sum; ++n) {
    term *= x / (a + n);
    sum += term;
  }
  return std::min(1.0, sum * std::exp(a * std::log(x) - x - std::lgamma(a)));
}

// The x in [0, inf) with cdf(x) = p for a monotone cdf with density `pdf`: Newton's steps from
// inside a bracket grown until it holds p, a bisection wherever a step would leave it.
template <typename Cdf, typename Pdf>
double inverse_of(const Cdf& cdf, const Pdf& pdf, double p) {
  double low = 0, high = 1;
  while (cdf(high) < p) high *= 2;
  double x = (low + high) / 2;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double error = cdf(x) - p;
    if (error == 0) return x;
    (error < 0 ? low : high) = x;
    const double density = pdf(x);
    const double step = density > 0 ? x - error / density : kNoStep;
    if (std::abs(step - x) <= 1e-13 * std::max(x, 1e-300)) return step;
    x = step > low && step < high ? step : (low + high) / 2;
  }
  return x;
}

}  // namespace

double student_t_cdf(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_cdf: degrees of freedom must be positive");
  const double tail = 0.5 * regularised_incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must lie in (0, 1)");
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  const double log_scale = std::lgamma((df + 1) / 2) - std::lgamma(df / 2) -
                          0.5 * std::log(df * std::numbers::pi);
  const auto density = [df, log_scale](double t) {
    return std::exp(log_scale - (df + 1) / 2 * std::log1p(t * t / df));
  };
  return inverse_of([df](double t) { return student_t_cdf(t, df); }, density, p);
}

double chi_squared_cdf(double x, double df) {
  if (!(df > 0)) throw std::invalid_argument("chi_squared_cdf: degrees of freedom must be positive");
  return regularised_lower_gamma(df / 2, x / 2);
}

double chi_squared_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("chi_squared_quantile: p must lie in (0, 1)");
  const auto density = [df](double x) {
    return x > 0 ? std::exp((df / 2 - 1) * std::log(x) - x / 2 - df / 2 * std::log(2.0) -
                            std::lgamma(df / 2))
                 : 0.0;
  };
  return inverse_of([df](double x) { return chi_squared_cdf(x, df); }, density, p);
}

double binomial_upper_tail(std::size_t k, std::size_t n, double p) {
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("binomial_upper_tail: p must lie in [0, 1]");
  if (k == 0) return 1;
  if (k > n) return 0;
  return regularised_incomplete_beta(static_cast<double>(k), static_cast<double>(n - k + 1), p);
}

}  // namespace collbench
