#include "harness/stats/resampled_median.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

#include "harness/stats/uniform_index.h"

namespace collbench {
namespace {

// Box and Muller's transform, one of its pair.
double standard_normal(std::mt19937_64& engine) {
  const double radius = std::sqrt(-2 * std::log(uniform_open(engine)));
  return radius * std::cos(2 * std::numbers::pi * uniform_open(engine));
}

// Gamma(shape, 1) for shape >= 1: Marsaglia and Tsang, "A simple method for generating gamma
// variables" (ACM TOMS 26(3), 2000), their squeeze-free form.
double gamma_draw(double shape, std::mt19937_64& engine) {
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = standard_normal(engine);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    if (std::log(uniform_open(engine)) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

// Beta(a, b) for a, b >= 1, as the share of the first of two gamma draws.
double beta_draw(double a, double b, std::mt19937_64& engine) {
  const double first = gamma_draw(a, engine);
  return first / (first + gamma_draw(b, engine));
}

}  // namespace

double resampled_median(std::span<const double> sorted, std::mt19937_64& engine) {
  const std::size_t n = sorted.size();
  const auto value_at = [&](double uniform) {
    return sorted[std::min(n - 1, static_cast<std::size_t>(static_cast<double>(n) * uniform))];
  };
  const auto count = static_cast<double>(n);
  const auto rank = static_cast<double>((n + 1) / 2);  // 1-based, of the lower middle value
  const double lower = beta_draw(rank, count - rank + 1, engine);
  if (n % 2 == 1) return value_at(lower);
  // The least of the n - k uniforms above `lower`: 1 - V^(1/(n - k)) of the way to 1.
  const double least_above = -std::expm1(std::log(uniform_open(engine)) / (count - rank));
  const double upper = lower + (1 - lower) * least_above;
  return (value_at(lower) + value_at(upper)) / 2;
}

}  // namespace collbench
