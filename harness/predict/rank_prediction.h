#pragma once
// A collective's time at rank counts not measured (docs/DESIGN.md, "Links, verdicts, predictions"):
// the algorithm families of rank_families.h fitted to the measured sizes nearest the size asked
// for, so that one protocol's regime is not bent to fit another's; the interval a bootstrap of
// the family's held-out errors, widened past the largest rank count measured by the error the
// same prediction made out of sample for each doubling it reached.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/fit/rank_families.h"
#include "harness/stats/interval.h"
#include "harness/stats/no_value.h"

namespace collbench {

// Not validated out of sample: no error per doubling to widen an interval by.
inline constexpr double kNotValidated = kNoValue;

struct PredictOptions {
  int bootstrap_replicates = 200;
  std::uint64_t seed = 1;
  // Per rank count, the measured sizes nearest the size asked for (in log distance) that the
  // families are fitted to.
  std::size_t window_sizes = 4;
};

// The prediction of one family at one rank count and size.
struct RankPrediction {
  double ranks = 0;
  double size_bytes = 0;
  double time_s = 0;
  Interval time_ci;
  double latency_s = 0;    // alpha·latency_factor(p)
  double bandwidth_s = 0;  // beta·n·bandwidth_factor(p)
  // log2 of how far p lies outside the measured rank counts; 0 inside them.
  double doublings_outside = 0;
  // How much the interval was widened for them: each side by a factor 1 + this.
  double widening = 0;
};

// A curve's families fitted around one size, ready to predict any rank count.
struct SizeModel {
  double size_bytes = 0;
  std::vector<double> window;        // the measured sizes fitted to (of the largest rank count)
  std::vector<FamilyFit> families;   // chosen first
  // Per family, its coefficients refitted in each bootstrap replicate (bootstrap_family).
  std::vector<std::vector<FamilyCoefficients>> replicates;
  int min_ranks = 0;  // measured
  int max_ranks = 0;
  // The relative error per doubling of extrapolation (error_per_doubling, from the out-of-sample
  // checks); kNotValidated leaves the interval as the bootstrap gives it.
  double error_per_doubling = kNotValidated;
};

// Fits the families of `kind` to the `curves` (ascending rank count, at least two rank counts)
// at the sizes nearest `size_bytes`. Throws std::invalid_argument as fit_rank_families does.
SizeModel fit_size_model(CollectiveKind kind, std::span<const RankCurve> curves, double size_bytes,
                         const PredictOptions& options);

// Family `family` (an index into model.families) at `ranks`, with its interval.
RankPrediction predict_ranks(const SizeModel& model, std::size_t family, double ranks);

// One measured point of the largest rank count predicted from the smaller ones alone.
struct OutOfSampleCheck {
  int fitted_up_to = 0;  // the largest rank count fitted to
  int ranks = 0;         // the rank count predicted
  double size_bytes = 0;
  std::string family;    // chosen on the smaller rank counts
  double predicted_s = 0;
  Interval predicted_ci;
  double measured_s = 0;
  double relative_error() const { return predicted_s / measured_s - 1; }
  bool inside() const { return predicted_ci.contains(measured_s); }
};

// Every size of the largest rank count, predicted by the families fitted to the smaller rank
// counts around it. Empty with fewer than three rank counts (two are needed to fit).
std::vector<OutOfSampleCheck> validate_largest_ranks(CollectiveKind kind,
                                                     std::span<const RankCurve> curves,
                                                     const PredictOptions& options);

// The median absolute relative error of the checks nearest `size_bytes` (options.window_sizes
// of them), over the doublings from the rank count fitted to the one predicted; kNotValidated
// without checks.
double error_per_doubling(std::span<const OutOfSampleCheck> checks, double size_bytes,
                          const PredictOptions& options);

}  // namespace collbench
