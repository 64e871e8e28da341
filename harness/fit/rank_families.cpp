#include "harness/fit/rank_families.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "harness/fit/affine_fit.h"

namespace collbench {
namespace {

// Mean squared relative residual below which a family fits exactly (see piecewise_fit.cpp).
constexpr double kMeanSquareFloor = 1e-20;

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
AffineFit fit_line(const RankFamily& family, std::span<const RankCurve> curves) {
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
  return fit_affine(scaled_sizes, scaled_times);
}

double predicted_time(const RankFamily& family, const AffineFit& line, double ranks, double size) {
  return family_time(family, line.alpha_s, line.beta_s_per_byte, ranks, size);
}

std::size_t point_count(std::span<const RankCurve> curves) {
  std::size_t points = 0;
  for (const RankCurve& curve : curves) points += curve.sizes.size();
  return points;
}

// Leave one rank count out: the family fitted to the others predicts its times.
double held_out_error(const RankFamily& family, std::span<const RankCurve> curves) {
  std::set<int> rank_counts;
  for (const RankCurve& curve : curves) rank_counts.insert(curve.nranks);
  if (rank_counts.size() < 3) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  std::size_t count = 0;
  for (int left_out : rank_counts) {
    std::vector<RankCurve> kept;
    for (const RankCurve& curve : curves)
      if (curve.nranks != left_out) kept.push_back(curve);
    const AffineFit line = fit_line(family, kept);
    for (const RankCurve& curve : curves) {
      if (curve.nranks != left_out) continue;
      for (std::size_t i = 0; i < curve.sizes.size(); ++i) {
        sum += std::abs(predicted_time(family, line, curve.nranks, curve.sizes[i]) -
                        curve.times[i]) / curve.times[i];
        ++count;
      }
    }
  }
  return count ? sum / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
}

FamilyFit fit_family(const RankFamily& family, std::span<const RankCurve> curves) {
  const AffineFit line = fit_line(family, curves);
  const double points = static_cast<double>(point_count(curves));
  const double mean_square = line.rms_rel_error * line.rms_rel_error;
  constexpr double kParameters = 2;
  return FamilyFit{
      .family = family,
      .alpha_s = line.alpha_s,
      .beta_s_per_byte = line.beta_s_per_byte,
      .rms_rel_error = line.rms_rel_error,
      .bic = points * std::log(std::max(mean_square, kMeanSquareFloor)) +
             kParameters * std::log(points),
      .held_out_rel_error = held_out_error(family, curves),
  };
}

// Held-out error where both families have one, else BIC.
bool better(const FamilyFit& a, const FamilyFit& b) {
  if (!std::isnan(a.held_out_rel_error) && !std::isnan(b.held_out_rel_error))
    return a.held_out_rel_error < b.held_out_rel_error;
  return a.bic < b.bic;
}

}  // namespace

double family_time(const RankFamily& family, double alpha_s, double beta_s_per_byte,
                   double ranks, double size_bytes) {
  return alpha_s * family.latency_factor(ranks) +
         beta_s_per_byte * size_bytes * family.bandwidth_factor(ranks);
}

std::vector<FamilyFit> fit_rank_families(CollectiveKind kind, std::span<const RankCurve> curves) {
  check_curves(curves);
  std::vector<FamilyFit> fits;
  for (const RankFamily& family : describe(kind).families)
    fits.push_back(fit_family(family, curves));
  std::ranges::stable_sort(fits, better);
  return fits;
}

std::optional<double> ring_crossover_ranks(const FamilyFit& ring, double size_bytes) {
  if (ring.alpha_s <= 0) return std::nullopt;
  // Without a bandwidth term (beta <= 0) latency dominates at every rank count: p* = 0.
  return std::max(0.0, size_bytes * ring.beta_s_per_byte / ring.alpha_s);
}

std::vector<FamilyCoefficients> bootstrap_family(const RankFamily& family,
                                                 std::span<const RankCurve> curves,
                                                 int replicates, std::uint64_t seed) {
  check_curves(curves);
  if (replicates < 1) throw std::invalid_argument("rank families: needs at least one replicate");
  const AffineFit line = fit_line(family, curves);
  // Each point's relative error as predicted by the fit without it (an in-sample residual is
  // shrunk where the point steers the fit, as the largest sizes steer beta). Relative errors are
  // exchangeable under the model, so every replicate draws each point's error from all of them:
  // beta rests on a few sizes, and their own errors alone would give intervals that vary from
  // run to run and fall short of 95%.
  std::vector<double> held_out;
  std::vector<RankCurve> without(curves.begin(), curves.end());
  for (std::size_t c = 0; c < curves.size(); ++c)
    for (std::size_t i = 0; i < curves[c].sizes.size(); ++i) {
      without[c].sizes.erase(without[c].sizes.begin() + static_cast<std::ptrdiff_t>(i));
      without[c].times.erase(without[c].times.begin() + static_cast<std::ptrdiff_t>(i));
      const AffineFit fit = fit_line(family, without);
      held_out.push_back(
          curves[c].times[i] / predicted_time(family, fit, curves[c].nranks, curves[c].sizes[i]) -
          1);
      without[c] = curves[c];
    }
  std::vector<RankCurve> modelled(curves.begin(), curves.end());
  for (RankCurve& curve : modelled)
    for (std::size_t i = 0; i < curve.sizes.size(); ++i)
      curve.times[i] = predicted_time(family, line, curve.nranks, curve.sizes[i]);
  std::vector<FamilyCoefficients> coefficients;
  std::vector<RankCurve> replicate = modelled;
  std::mt19937_64 engine(seed);
  for (int r = 0; r < replicates; ++r) {
    for (std::size_t c = 0; c < curves.size(); ++c)
      for (std::size_t i = 0; i < curves[c].sizes.size(); ++i)
        replicate[c].times[i] =
            modelled[c].times[i] *
            std::max(kSmallestShare, 1 + held_out[uniform_index(engine, held_out.size())]);
    const AffineFit refit = fit_line(family, replicate);
    coefficients.push_back({refit.alpha_s, refit.beta_s_per_byte});
  }
  return coefficients;
}

Interval crossover_interval(std::span<const FamilyCoefficients> ring_replicates,
                           double size_bytes) {
  std::vector<double> draws;
  for (const FamilyCoefficients& replicate : ring_replicates)
    draws.push_back(replicate.alpha_s > 0
                        ? std::max(0.0, size_bytes * replicate.beta_s_per_byte / replicate.alpha_s)
                        : std::numeric_limits<double>::infinity());
  return central_95(std::move(draws));
}

std::vector<Interval> ring_crossover_intervals(CollectiveKind kind,
                                               std::span<const RankCurve> curves,
                                               std::span<const double> sizes, int replicates,
                                               std::uint64_t seed) {
  const std::vector<FamilyCoefficients> coefficients =
      bootstrap_family(describe(kind).families.front(), curves, replicates, seed);
  std::vector<Interval> intervals;
  for (double size : sizes) intervals.push_back(crossover_interval(coefficients, size));
  return intervals;
}

}  // namespace collbench
