#pragma once
// Synthetic curves across rank counts for the family and prediction tests: a textbook
// algorithm's time per (size, rank count), with multiplicative lognormal noise of median 1 on
// each per-size median.
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "harness/fit/rank_families.h"
#include "tests/unit/synthetic_curve.h"

namespace collbench::synthetic {

inline constexpr double kAlpha = 5e-6;
inline constexpr double kBeta = 1 / 25e9;
using TimeModel = std::function<double(double size, double ranks)>;

inline double ring_allreduce(double size, double ranks) {
  return 2 * (ranks - 1) * kAlpha + 2 * (ranks - 1) / ranks * size * kBeta;
}

inline double tree_allreduce(double size, double ranks) {
  return 2 * std::log2(ranks) * kAlpha + 2 * size * kBeta;
}

inline double ring_allgather(double size, double ranks) {
  return (ranks - 1) * kAlpha + (ranks - 1) / ranks * size * kBeta;
}

// One curve per rank count over 8 B .. 64 MiB; noise_sigma 0 gives the model's times exactly.
inline std::vector<RankCurve> curves_of(const TimeModel& model, std::vector<int> rank_counts,
                                        double noise_sigma = 0, std::uint64_t seed = 11) {
  std::vector<RankCurve> curves;
  StandardNormal normal(seed);
  for (int ranks : rank_counts) {
    RankCurve curve{.nranks = ranks, .sizes = standard_sizes(), .times = {}};
    for (double size : curve.sizes)
      curve.times.push_back(model(size, ranks) * std::exp(noise_sigma * normal()));
    curves.push_back(std::move(curve));
  }
  return curves;
}

}  // namespace collbench::synthetic
