#include "harness/stats/moderated_variance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "harness/stats/polygamma.h"

namespace collbench {

VariancePrior fit_variance_prior(std::span<const double> variances, std::span<const double> df) {
  double smallest = std::numeric_limits<double>::infinity();
  for (double v : variances)
    if (v > 0) smallest = std::min(smallest, v);
  if (variances.size() < 2 || !std::isfinite(smallest)) return {};
  // log s² − ψ(d/2) + log(d/2) has mean log s₀² − ψ(d₀/2) + log(d₀/2) and variance
  // ψ'(d/2) + ψ'(d₀/2).
  std::vector<double> e;
  double mean_trigamma = 0;
  for (std::size_t i = 0; i < variances.size(); ++i) {
    const double half = df[i] / 2;
    const double v = variances[i] > 0 ? variances[i] : smallest / 1000;
    e.push_back(std::log(v) - digamma(half) + std::log(half));
    mean_trigamma += trigamma(half);
  }
  const double n = static_cast<double>(e.size());
  mean_trigamma /= n;
  double mean = 0;
  for (double x : e) mean += x;
  mean /= n;
  double spread = 0;
  for (double x : e) spread += (x - mean) * (x - mean);
  const double excess = spread / (n - 1) - mean_trigamma;
  if (!(excess > 0)) return {std::exp(mean), std::numeric_limits<double>::infinity()};
  const double prior_df = 2 * trigamma_inverse(excess);
  return {std::exp(mean + digamma(prior_df / 2) - std::log(prior_df / 2)), prior_df};
}

ModeratedVariance moderate(const VariancePrior& prior, double variance, double df) {
  if (std::isinf(prior.df)) return {prior.variance, prior.df};
  return {(prior.df * prior.variance + df * variance) / (prior.df + df), prior.df + df};
}

}  // namespace collbench
