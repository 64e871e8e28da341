#pragma once
// The models of a run: every curve's piecewise fit with bootstrap intervals and trust flags,
// its headline, and, where the run holds several rank counts, the algorithm families and their
// crossovers.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "harness/fit/bootstrap.h"
#include "harness/fit/rank_families.h"
#include "harness/plan/point.h"

namespace collbench {

// A curve: all sizes of one backend, collective, datatype, op, placement, rank count, mode,
// in-place variant, algorithm and protocol. Its key is any of its points' keys with size and
// count zeroed; a family across rank counts is a curve key with nranks 0 as well, so neither
// mixes tunings.
PointKey curve_key(const PointKey& point);
// A curve across rank counts: curve_key with nranks 0 too.
PointKey rank_curve_key(const PointKey& point);

// A curve across rank counts: a curve key with nranks 0, and per rank count the per-size
// medians, ascending size. Files measured apart at one rank count pool into one curve.
struct RankCurves {
  PointKey key;
  std::vector<RankCurve> curves;  // ascending rank count
  int max_ranks() const { return curves.back().nranks; }
};
std::vector<RankCurves> rank_curves(const std::vector<PointResult>& points);

struct SegmentReport {
  std::size_t min_size_bytes = 0;
  std::size_t max_size_bytes = 0;
  std::size_t sizes = 0;
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  Interval alpha_ci;
  Interval beta_ci;
  double half_size_bytes = 0;  // n½ = alpha/beta: below it the latency term dominates
  Interval half_size_ci;
  double rms_rel_error = 0;
  double max_rel_error = 0;
  bool alpha_at_bound = false;  // the line would have crossed zero: alpha held at 0
  std::vector<std::string> flags;  // why the numbers cannot be trusted; empty when they can
  bool trusted() const { return flags.empty(); }
};

// The one crossover of a curve (docs/DESIGN.md, "Models"), the number every output uses: the
// latency of the small-message regime (alpha of the first segment), the bandwidth of the
// large-message regime (beta of the last), and n½ = alpha/beta, the size below which the
// latency term dominates, each with its interval; and how far the model misses sizes it did
// not see.
struct Headline {
  double alpha_s = 0;
  Interval alpha_ci;
  double beta_s_per_byte = 0;
  Interval beta_ci;
  double half_size_bytes = 0;
  Interval half_size_ci;
  double misfit = 0;  // median relative error of each size predicted by the fit made without it
  // Where the bandwidth falls with size instead of saturating: the first size of the slower
  // regime and the best bandwidth before it (beta); 0 when it never falls.
  std::size_t bandwidth_falls_at_bytes = 0;
  double peak_beta_s_per_byte = 0;
  std::vector<std::string> flags;  // why the headline cannot be trusted; empty when it can
  bool trusted() const { return flags.empty(); }
};

struct CurveFit {
  PointKey key;
  std::size_t sizes = 0;
  std::size_t min_size_bytes = 0;
  std::size_t max_size_bytes = 0;
  std::vector<SegmentReport> segments;  // empty when the curve cannot be fitted at all
  std::optional<Headline> headline;      // with the segments
  std::vector<std::string> flags;
  std::optional<double> holdout_median_rel_error;
};

struct CrossoverReport {
  PointKey key;  // curve key with nranks 0: one line per family across rank counts
  FamilyFit family;
  double size_bytes = 0;
  std::optional<double> crossover_ranks;  // p* = n·beta/alpha
  // Its 95% interval (rank_families.h); the high end is infinite where replicates lose alpha.
  Interval crossover_ranks_ci{std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::quiet_NaN()};
  int max_ranks_measured = 0;
  bool extrapolated() const { return crossover_ranks && *crossover_ranks > max_ranks_measured; }
};

struct FamilyReport {
  PointKey key;  // nranks 0
  std::vector<int> rank_counts;
  std::vector<FamilyFit> families;  // chosen first
};

struct FitOptions {
  int bootstrap_replicates = 200;
  std::uint64_t seed = 1;
  std::vector<double> crossover_sizes;  // empty: 25 MiB and the largest size measured
  bool holdout = false;  // fit every other size, report the error on the others
};

struct ModelReport {
  std::vector<CurveFit> curves;
  std::vector<FamilyReport> families;
  std::vector<CrossoverReport> crossovers;
};

// Fits every curve of `points`: their medians, and their raw samples where kept
// (read_result_file(path, true)) for the intervals.
ModelReport fit_models(const std::vector<PointResult>& points, const FitOptions& options);

// The headline as one segment over all the curve's sizes: its alpha the small-message latency,
// its beta the large-message bandwidth, its flags the headline's; for code that judges
// segments. The curve must have a headline.
SegmentReport headline_segment(const CurveFit& curve);

// Why a fitted quantity (alpha or beta, by `name`) says little, or nullopt when it holds: its
// interval reaches zero, is wider than itself, or does not hold it (the replicates, their
// breakpoints chosen again, mostly put it elsewhere). Each reason makes its segment or headline
// untrusted.
std::optional<std::string> parameter_doubt(const char* name, double value, const Interval& ci);

}  // namespace collbench
