#pragma once
// The slowest-of-p tail (docs/DESIGN.md): every collective waits for its slowest rank, so its time
// at p ranks is the largest of p ranks' times, and that grows with p even where nothing else does.
// From one point's per-rank times on the common clock (latency mode, window starts), rank r's
// time in sample s is modelled as a part common to the sample (the fabric's and the library's
// state then) plus the rank's own lag, and the slowest of P ranks is predicted by resampling:
// per sample, its common part plus the largest of P lags drawn from all samples' lags (from
// lag_distribution.h, whose fitted tail reaches past the largest lag measured).
#include <cstdint>
#include <span>
#include <vector>

#include "harness/plan/point.h"
#include "harness/stats/interval.h"

namespace collbench {

struct TailOptions {
  int bootstrap_replicates = 200;  // 0: point estimates only, NaN intervals
  std::uint64_t seed = 1;
};

// The slowest of `ranks` ranks, predicted; intervals 95%, from a bootstrap over samples.
struct TailPrediction {
  double ranks = 0;
  double median_s = 0;
  Interval median_ci;
  double p99_over_median = 0;
  Interval p99_over_median_ci;
  // The tail term: how far the slowest of `ranks` lags one rank, at the median (the median of
  // the slowest minus the median of one rank's times).
  double tail_s = 0;
  Interval tail_ci;
};

// Whether `samples` hold what the model needs: two rank columns or more, and samples enough for
// the lags' tail to be fitted.
bool tail_predictable(const RawSamples& samples);

// At each of `ranks`, the slowest of that many ranks. `samples` tail_predictable.
std::vector<TailPrediction> predict_tail(const RawSamples& samples, std::span<const double> ranks,
                                         const TailOptions& options);

}  // namespace collbench
