#pragma once
// Across rank counts: the algorithm families of docs/DESIGN.md fitted jointly over every (size,
// rank count), linear in (alpha, beta), by relative-error least squares. The better family is
// the one that predicts a rank count it was not fitted to (leave one rank count out) better,
// where there are three rank counts or more; by BIC with two. Ring allreduce
// 2(p-1)·alpha + 2(p-1)/p·n·beta; tree allreduce 2·log2(p)·alpha + 2·n·beta; ring allgather and
// reduce-scatter (p-1)·alpha + (p-1)/p·n·beta.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "harness/fit/bootstrap.h"

namespace collbench {

struct RankCurve {
  int nranks = 0;
  std::vector<double> sizes;  // bytes
  std::vector<double> times;  // seconds, per-size medians
};

struct FamilyFit {
  RankFamily family;
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double rms_rel_error = 0;
  double bic = 0;
  // With three rank counts or more: the mean relative error with which the family, fitted
  // without a rank count, predicts that count's times; NaN with fewer.
  double held_out_rel_error = std::numeric_limits<double>::quiet_NaN();
};

// A family's time with these coefficients: alpha·latency_factor(p) + beta·n·bandwidth_factor(p).
double family_time(const RankFamily& family, double alpha_s, double beta_s_per_byte,
                   double ranks, double size_bytes);
inline double family_time(const FamilyFit& fit, double ranks, double size_bytes) {
  return family_time(fit.family, fit.alpha_s, fit.beta_s_per_byte, ranks, size_bytes);
}

// The families that apply to `kind`, each fitted; the chosen one first.
// Needs at least two distinct rank counts; throws std::invalid_argument otherwise.
std::vector<FamilyFit> fit_rank_families(CollectiveKind kind, std::span<const RankCurve> curves);

// The rank count past which the ring's latency term dominates a message of `size_bytes`:
// p* = n·beta/alpha, 0 when beta <= 0 (latency dominates at every rank count). nullopt when
// alpha <= 0.
std::optional<double> ring_crossover_ranks(const FamilyFit& ring, double size_bytes);

struct FamilyCoefficients {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};

// Replicates of `family`'s coefficients: a residual bootstrap over each point's held-out
// relative error (the point predicted by the fit without it), drawn from all of them and put
// back on the fit's time, the family refitted per replicate; so its misfit across rank counts
// and sizes widens what the replicates spread over.
std::vector<FamilyCoefficients> bootstrap_family(const RankFamily& family,
                                                 std::span<const RankCurve> curves,
                                                 int replicates, std::uint64_t seed);

// The 95% interval of p* at `size_bytes` over the ring's bootstrap replicates. Replicates whose
// alpha is 0 have no p*: they count as beyond every rank count.
Interval crossover_interval(std::span<const FamilyCoefficients> ring_replicates,
                           double size_bytes);

// The 95% interval of that p* for each size, from bootstrap_family of the ring. On synthetic ring data it
// holds the planted p* in 93% of 1,000 seeds.
std::vector<Interval> ring_crossover_intervals(CollectiveKind kind,
                                               std::span<const RankCurve> curves,
                                               std::span<const double> sizes, int replicates,
                                               std::uint64_t seed);

}  // namespace collbench
