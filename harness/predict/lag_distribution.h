#pragma once
// How far one rank lags its sample's fastest rank, as a distribution to draw the slowest of many
// ranks from. The slowest of 1,024 ranks lies past the 1 − 1/1,024 quantile of the lags, and its
// p99 past the 1 − 1/100,000: beyond the largest of the 4,000 lags that 1,000 samples of 4 ranks
// hold. So the lags are their sorted values below a threshold and, above it, a generalized Pareto
// tail fitted to the largest of them (the peaks-over-threshold model of extreme-value theory:
// the excess over a high threshold of any distribution with a tail is Pareto in the limit),
// which extrapolates where the sorted values stop.
#include <cstddef>
#include <vector>

namespace collbench {

// Which shape the tail takes past the threshold: the fitted one, or that shape raised to 0 where
// it fell below, a tail without an upper bound. Lags have none (a rank can always be descheduled
// once more), yet a hundred exceedances fit the shape only to about ±0.1 (one standard
// deviation, planted lognormal lags), so an unbounded tail often fits as a bounded one.
enum class TailShape { fitted, unbounded };

class LagDistribution {
 public:
  // `sorted_lags` ascending, at least two; `exceedances` of the largest (at least one, fewer
  // than all) are fitted by probability-weighted moments (Hosking and Wallis 1987), closed form
  // and free of the failures of maximum likelihood on few values.
  LagDistribution(std::vector<double> sorted_lags, std::size_t exceedances);

  // The lag exceeded with probability `survival`, in (0, 1].
  double upper_quantile(double survival, TailShape shape = TailShape::fitted) const;

  double pareto_shape() const { return shape_; }

 private:
  std::vector<double> sorted_;
  double threshold_ = 0;   // the largest lag below the exceedances
  double tail_share_ = 0;  // exceedances / lags: the survival at the threshold
  double scale_ = 0;
  double shape_ = 0;  // 0: an exponential tail; above 0 heavier, below 0 bounded
};

}  // namespace collbench
