#pragma once
// A point measured in interleaved rounds (docs/DESIGN.md, "Stopping"): what changes between rounds
// (memory placement, frequency, a neighbour's load) is seen by none of the samples inside one,
// so a point's interval and a comparison of runs must include it (Kalibera and Jones, "Rigorous
// Benchmarking in Reasonable Time", ISMM 2013: repeat at the level that varies, and let that
// level's spread set the interval). Whether it varies is asked first: rounds whose medians
// agree within their own precision add nothing, and their pooled samples give the interval
// (Kalibera and Jones' preliminary experiment, asked of every point).
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "harness/stats/interval.h"

namespace collbench {

// A round's median and how closely its samples pin it: the variance of the median's logarithm,
// its 95% distribution-free interval read as a normal one; NaN when the round has too few
// samples for that interval.
struct RoundMedian {
  double median = 0;
  double log_variance = std::numeric_limits<double>::quiet_NaN();
};

// That variance for a median's 95% interval: (ln(high / low) / (2 · 1.96))².
double log_variance_of(const Interval& median_interval);

// Each round's median; `round_starts[j]` is the first sample of round j, in ascending order. A
// round without samples (cut by --time-limit) has none. Samples read in steps of `step` have
// their medians' intervals widened by it (stats/reading_step.h).
std::vector<RoundMedian> round_estimates(std::span<const double> samples,
                                         std::span<const std::size_t> round_starts,
                                         double step = 0);
std::vector<double> medians_of(std::span<const RoundMedian> rounds);

// How far apart the rounds' medians lie, as a reader can take it: (max - min) / (max + min), so
// that they lie within ±spread of the middle of their range; below 1 however far apart they
// are. NaN with fewer than two rounds.
double round_spread(std::span<const RoundMedian> rounds);

// Mean and sample variance (n - 1) of the logarithms of positive values.
struct LogSpread {
  double mean = 0;
  double variance = 0;
  std::size_t count = 0;
};
LogSpread log_spread(std::span<const double> values);
LogSpread spread_of_logs(std::span<const double> logs);  // the same, of values already logged

// Whether the rounds' medians differ no more than their own variances explain: Cochran's Q (the
// squared log distances from their precision-weighted mean, each over its variance) at most the
// chi-squared(R - 1) quantile of kRoundsAgreeLevel. False when a round has no variance.
bool rounds_agree(std::span<const RoundMedian> rounds);

// The half-width, on a log scale, of the `confidence` interval that the spread between rounds
// gives a point: t(R-1) · s / sqrt(R), s the standard deviation of the logs of the R round
// medians; 0 when the rounds agree, or with fewer than two rounds, which show no spread.
double round_noise_halfwidth(std::span<const RoundMedian> rounds, double confidence = 0.95);

// The rounds a point has measured, asked after every sample of its next round whether the
// point can still reach a `target` half-width (relative) at `confidence`.
class RoundsSoFar {
 public:
  RoundsSoFar() = default;  // no earlier round: nothing is settled
  RoundsSoFar(std::span<const RoundMedian> earlier, int rounds, double target,
              double confidence = 0.95);

  // True when the point cannot reach the target whatever it measures from now on, with the
  // current round's median in `current` (its interval so far): the rounds cannot agree (Q of
  // the earlier rounds and the current one, its median nearest theirs, is over the quantile
  // already, and more samples and more rounds only add to it), and their spread gives
  // round_noise_halfwidth above ln(1 + target) at the least (the current median nearest the
  // earlier ones' mean, the later ones at the mean of all). More samples in the current round
  // then buy nothing.
  bool cannot_converge(const Interval& current) const;

 private:
  bool cannot_agree(const Interval& current) const;
  bool spread_too_wide(const Interval& current) const;

  LogSpread earlier_;
  // The sum of squared log deviations of all R medians above which t(R-1)·s/√R exceeds
  // ln(1 + target); computed once, as the t quantile is dear.
  double most_squares_ = 0;
  // Cochran's Q of the earlier rounds, their total weight (1 / variance) and weighted mean log,
  // and the Q above which R rounds disagree; no agreement is possible when a round lacks a
  // variance.
  bool can_agree_ = false;
  double q_ = 0;
  double weight_ = 0;
  double weighted_mean_ = 0;
  double most_q_ = 0;
};

// The interval of a point's median `center` once that spread is included: center times
// exp(±halfwidth), joined with `within` (the interval of the pooled samples), so it is never
// narrower than the noise inside the rounds.
Interval with_round_noise(const Interval& within, double center, double log_halfwidth);

}  // namespace collbench
