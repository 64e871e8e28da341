#pragma once
// Variances of many like quantities, each estimated from a few values, moderated toward what
// they share (Smyth 2004, limma's squeezeVar): the sample variances s²ᵢ on dᵢ degrees of freedom
// are taken as draws of a scaled inverse chi-squared prior of d₀ degrees of freedom around s₀²,
// fitted by the moments of log s²ᵢ; each point's moderated variance is then
// (d₀ s₀² + dᵢ s²ᵢ) / (d₀ + dᵢ) on d₀ + dᵢ degrees of freedom. A point whose few values happen to
// agree is not taken for a quiet one, and a noisy one keeps most of its own spread.
#include <span>

namespace collbench {

struct VariancePrior {
  double variance = 0;  // s₀²
  double df = 0;        // d₀: infinite when the sample variances vary no more than chance says
};

// From the sample variances and their degrees of freedom (each df > 0); variances of 0 are
// taken as a thousandth of the smallest positive one (equal values in a few launches). At
// least 2 variances with a positive one, else a prior of 0 df (no moderation).
VariancePrior fit_variance_prior(std::span<const double> variances, std::span<const double> df);

struct ModeratedVariance {
  double variance = 0;
  double df = 0;  // infinite with an infinite prior
};
ModeratedVariance moderate(const VariancePrior& prior, double variance, double df);

}  // namespace collbench
