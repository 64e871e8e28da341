#pragma once
// Across rank counts: the algorithm families of DESIGN.md fitted jointly over every (size,
// rank count), linear in (alpha, beta), by relative-error least squares; the better family by
// BIC. Ring allreduce 2(p-1)·alpha + 2(p-1)/p·n·beta; tree allreduce 2·log2(p)·alpha + 2·n·beta;
// ring allgather and reduce-scatter (p-1)·alpha + (p-1)/p·n·beta.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "benches/collective_kind.h"

namespace collbench {

struct RankCurve {
  int nranks = 0;
  std::vector<double> sizes;  // bytes
  std::vector<double> times;  // seconds, per-size medians
};

struct FamilyFit {
  std::string family;  // "ring" or "tree"
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double rms_rel_error = 0;
  double bic = 0;
};

// The families that apply to `kind`, each fitted; the chosen one (lowest BIC) first.
// Needs at least two distinct rank counts; throws std::invalid_argument otherwise.
std::vector<FamilyFit> fit_rank_families(CollectiveKind kind, std::span<const RankCurve> curves);

// The rank count past which the ring's latency term dominates a message of `size_bytes`:
// p* = n·beta/alpha. nullopt when alpha <= 0.
std::optional<double> ring_crossover_ranks(const FamilyFit& ring, double size_bytes);

}  // namespace collbench
