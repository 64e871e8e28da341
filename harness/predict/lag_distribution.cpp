#include "harness/predict/lag_distribution.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collbench {

LagDistribution::LagDistribution(std::vector<double> sorted_lags, std::size_t exceedances)
    : sorted_(std::move(sorted_lags)) {
  const std::size_t count = sorted_.size();
  if (exceedances == 0 || exceedances >= count)
    throw std::invalid_argument("LagDistribution: the exceedances must be some of the lags");
  threshold_ = sorted_[count - exceedances - 1];
  tail_share_ = static_cast<double>(exceedances) / static_cast<double>(count);
  // The excesses' first two probability-weighted moments, with the plotting positions
  // (i − 0.35)/k that Hosking and Wallis recommend.
  double mean = 0;
  double weighted = 0;
  const auto k = static_cast<double>(exceedances);
  for (std::size_t i = 0; i < exceedances; ++i) {
    const double excess = sorted_[count - exceedances + i] - threshold_;
    mean += excess;
    weighted += excess * (1 - (static_cast<double>(i + 1) - 0.35) / k);
  }
  mean /= k;
  weighted /= k;
  // mean − 2·weighted is positive unless every excess is 0 (lags rounded to one value).
  const double spread = mean - 2 * weighted;
  if (spread <= 0) return;  // no tail past the threshold: scale 0
  shape_ = 2 - mean / spread;
  scale_ = 2 * mean * weighted / spread;
}

double LagDistribution::upper_quantile(double survival, TailShape shape) const {
  if (survival > tail_share_) {
    const auto count = static_cast<double>(sorted_.size());
    const auto index = static_cast<std::size_t>(count * (1 - survival));
    return sorted_[std::min(index, sorted_.size() - 1)];
  }
  const double relative = survival / tail_share_;  // the survival past the threshold
  const double xi = shape == TailShape::unbounded ? std::max(shape_, 0.0) : shape_;
  if (std::abs(xi) < 1e-9) return threshold_ - scale_ * std::log(relative);
  return threshold_ + scale_ * std::expm1(-xi * std::log(relative)) / xi;
}

}  // namespace collbench
