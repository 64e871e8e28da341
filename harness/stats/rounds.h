#pragma once
// A point measured in interleaved rounds (DESIGN.md, "Stopping"): what changes between rounds
// (memory placement, frequency, a neighbour's load) is seen by none of the samples inside one,
// so a point's interval and a comparison of runs must include it (Kalibera and Jones, "Rigorous
// Benchmarking in Reasonable Time", ISMM 2013: repeat at the level that varies, and let that
// level's spread set the interval).
#include <cstddef>
#include <span>
#include <vector>

#include "harness/stats/interval.h"

namespace collbench {

// The median of each round's samples; `round_starts[j]` is the first sample of round j, in
// ascending order. A round without samples (cut by --time-limit) has no median.
std::vector<double> round_medians(std::span<const double> samples,
                                  std::span<const std::size_t> round_starts);

// Mean and sample variance (n - 1) of the logarithms of positive values.
struct LogSpread {
  double mean = 0;
  double variance = 0;
  std::size_t count = 0;
};
LogSpread log_spread(std::span<const double> values);

// The half-width, on a log scale, of the `confidence` interval that the spread between rounds
// gives a point: t(R-1) · s / sqrt(R), s the standard deviation of the logs of the R round
// medians; 0 with fewer than two rounds, which show no spread.
double round_noise_halfwidth(std::span<const double> round_medians, double confidence = 0.95);

// The rounds a point has measured, asked after every sample of its next round whether the
// point can still reach a `target` half-width (relative) at `confidence`.
class RoundsSoFar {
 public:
  RoundsSoFar() = default;  // no earlier round: nothing is settled
  RoundsSoFar(std::span<const double> medians, int rounds, double target,
              double confidence = 0.95);

  // True when the point cannot reach the target whatever it measures from now on: the medians
  // so far, a current round whose median lies in `current`, and any medians of the rounds still
  // to come give round_noise_halfwidth above ln(1 + target) at the least (the current median
  // nearest the earlier ones' mean, the later ones at the mean of all). More samples in the
  // current round then buy nothing.
  bool cannot_converge(const Interval& current) const;

 private:
  LogSpread earlier_;
  // The sum of squared log deviations of all R medians above which t(R-1)·s/√R exceeds
  // ln(1 + target); computed once, as the t quantile is dear.
  double most_squares_ = 0;
};

// The interval of a point's median `center` once that spread is included: center times
// exp(±halfwidth), joined with `within` (the interval of the pooled samples), so it is never
// narrower than the noise inside the rounds.
Interval with_round_noise(const Interval& within, double center, double log_halfwidth);

}  // namespace collbench
