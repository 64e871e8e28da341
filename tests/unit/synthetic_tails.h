#pragma once
// Planted tails for the tail tests: rank r's time in sample s is c_s + e_sr, the common part c_s
// lognormal (the fabric's state, shared by every rank of a sample), each rank's lag e_sr
// exponential or lognormal, all independent. The slowest of P ranks is then c + max of P lags,
// whose quantiles are computed exactly (a quadrature over c, bisection in x) to compare with.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

#include "harness/plan/point.h"
#include "tests/unit/synthetic_curve.h"

namespace collbench::synthetic {

struct PlantedTail {
  double common_median_s = 20e-6;
  double common_sigma = 0.05;
  bool lognormal_lag = false;  // false: exponential
  double lag_scale_s = 2e-6;   // exponential: the mean; lognormal: the median
  double lag_sigma = 0.5;      // lognormal only

  double lag_cdf(double lag_s) const {
    if (lag_s <= 0) return 0;
    if (!lognormal_lag) return -std::expm1(-lag_s / lag_scale_s);
    return 0.5 * std::erfc(-std::log(lag_s / lag_scale_s) / (lag_sigma * std::numbers::sqrt2));
  }

  // P(slowest of `ranks` <= x): the mean over c of P(every lag <= x − c), by the trapezoidal
  // rule over c's normal z from −8 to 8.
  double slowest_cdf(double x, double ranks) const {
    constexpr int kSteps = 800;
    constexpr double kHalfWidth = 8;
    const double step = 2 * kHalfWidth / kSteps;
    double sum = 0;
    for (int i = 0; i <= kSteps; ++i) {
      const double z = -kHalfWidth + i * step;
      const double weight = (i == 0 || i == kSteps ? 0.5 : 1) * std::exp(-z * z / 2);
      sum += weight * std::pow(lag_cdf(x - common_median_s * std::exp(common_sigma * z)), ranks);
    }
    return sum * step / std::sqrt(2 * std::numbers::pi);
  }

  // The q-quantile of the slowest of `ranks`.
  double slowest_quantile(double q, double ranks) const {
    double low = 0;
    double high = 1;
    for (int i = 0; i < 200; ++i) {
      const double middle = (low + high) / 2;
      (slowest_cdf(middle, ranks) < q ? low : high) = middle;
    }
    return (low + high) / 2;
  }

  RawSamples samples(std::size_t count, int ranks, std::uint64_t seed) const {
    StandardNormal normal(seed);
    std::mt19937_64 engine(seed + 0x9e3779b97f4a7c15ULL);
    RawSamples raw;
    raw.nranks = ranks;
    // Uniform in (0, 1), for the exponential's inverse.
    const auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) * 0x1p-53; };
    for (std::size_t s = 0; s < count; ++s) {
      const double common = common_median_s * std::exp(common_sigma * normal());
      for (int r = 0; r < ranks; ++r) {
        const double lag = lognormal_lag ? lag_scale_s * std::exp(lag_sigma * normal())
                                         : -lag_scale_s * std::log(uniform());
        raw.per_rank_seconds.push_back(common + lag);
      }
    }
    return raw;
  }
};

}  // namespace collbench::synthetic
