#include "harness/fit/rank_families.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "harness/fit/affine_fit.h"

namespace collbench {
namespace {

// Mean squared relative residual below which a family fits exactly (see piecewise_fit.cpp).
constexpr double kMeanSquareFloor = 1e-20;

// A family's time is alpha·latency_factor(p) + beta·n·bandwidth_factor(p).
struct Family {
  const char* name;
  double (*latency_factor)(double ranks);
  double (*bandwidth_factor)(double ranks);
};

constexpr Family kRingAllreduce{"ring", [](double p) { return 2 * (p - 1); },
                                [](double p) { return 2 * (p - 1) / p; }};
constexpr Family kTreeAllreduce{"tree", [](double p) { return 2 * std::log2(p); },
                                [](double) { return 2.0; }};
constexpr Family kRingGather{"ring", [](double p) { return p - 1; },
                             [](double p) { return (p - 1) / p; }};

std::vector<Family> families_of(CollectiveKind kind) {
  if (kind == CollectiveKind::allreduce) return {kRingAllreduce, kTreeAllreduce};
  return {kRingGather};
}

void check_curves(std::span<const RankCurve> curves) {
  std::set<int> rank_counts;
  for (const RankCurve& curve : curves) {
    if (curve.nranks < 2)
      throw std::invalid_argument("rank families: a curve has fewer than 2 ranks");
    if (curve.sizes.size() != curve.times.size())
      throw std::invalid_argument("rank families: sizes and times differ in length");
    rank_counts.insert(curve.nranks);
  }
  if (rank_counts.size() < 2)
    throw std::invalid_argument("rank families: needs at least two distinct rank counts");
}

// Dividing T = alpha·a(p) + beta·n·b(p) by a(p) gives T/a(p) = alpha + beta·(n·b(p)/a(p)), an
// affine model whose relative residual is the family's own: the affine fit (relative error,
// Huber) applies unchanged to every (n, p) point.
FamilyFit fit_family(const Family& family, std::span<const RankCurve> curves) {
  std::vector<double> scaled_sizes;
  std::vector<double> scaled_times;
  for (const RankCurve& curve : curves) {
    const double ranks = curve.nranks;
    const double latency = family.latency_factor(ranks);
    const double bandwidth = family.bandwidth_factor(ranks);
    for (std::size_t i = 0; i < curve.sizes.size(); ++i) {
      scaled_sizes.push_back(curve.sizes[i] * bandwidth / latency);
      scaled_times.push_back(curve.times[i] / latency);
    }
  }
  const AffineFit line = fit_affine(scaled_sizes, scaled_times);
  const double points = static_cast<double>(scaled_sizes.size());
  const double mean_square = line.rms_rel_error * line.rms_rel_error;
  constexpr double kParameters = 2;
  return FamilyFit{
      .family = family.name,
      .alpha_s = line.alpha_s,
      .beta_s_per_byte = line.beta_s_per_byte,
      .rms_rel_error = line.rms_rel_error,
      .bic = points * std::log(std::max(mean_square, kMeanSquareFloor)) +
             kParameters * std::log(points),
  };
}

}  // namespace

std::vector<FamilyFit> fit_rank_families(CollectiveKind kind, std::span<const RankCurve> curves) {
  check_curves(curves);
  std::vector<FamilyFit> fits;
  for (const Family& family : families_of(kind)) fits.push_back(fit_family(family, curves));
  std::ranges::stable_sort(fits, {}, &FamilyFit::bic);
  return fits;
}

std::optional<double> ring_crossover_ranks(const FamilyFit& ring, double size_bytes) {
  if (ring.alpha_s <= 0) return std::nullopt;
  return size_bytes * ring.beta_s_per_byte / ring.alpha_s;
}

}  // namespace collbench
