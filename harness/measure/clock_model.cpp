#include "harness/measure/clock_model.h"

#include <algorithm>

namespace collbench {

ClockFitpoint best_fitpoint(std::span<const PingPong> exchanges) {
  const auto best = std::min_element(exchanges.begin(), exchanges.end(),
                                     [](const PingPong& a, const PingPong& b) {
                                       return a.received_s - a.sent_s < b.received_s - b.sent_s;
                                     });
  const double midpoint = (best->sent_s + best->received_s) / 2;
  return {midpoint, best->root_s - midpoint, best->received_s - best->sent_s};
}

double ClockModel::offset_at(double local_s) const {
  if (history_.empty()) return 0;
  const ClockFitpoint& newest = history_.back();
  return newest.offset_s + drift_ * (local_s - newest.local_s);
}

// offset_at is affine in local time, so one step of the fixed point is exact.
double ClockModel::to_local(double root_s) const {
  if (history_.empty()) return root_s;
  const ClockFitpoint& newest = history_.back();
  return (root_s - newest.offset_s + drift_ * newest.local_s) / (1 + drift_);
}

void ClockModel::add(const ClockFitpoint& fitpoint) {
  history_.push_back(fitpoint);
  if (history_.size() > kHistory) history_.pop_front();
  drift_ = 0;
  if (history_.back().local_s - history_.front().local_s < kMinDriftBaselineSeconds) return;
  // Least-squares slope of offset over local time, centred for precision.
  double mean_t = 0, mean_o = 0;
  for (const auto& p : history_) {
    mean_t += p.local_s;
    mean_o += p.offset_s;
  }
  mean_t /= history_.size();
  mean_o /= history_.size();
  double covariance = 0, variance = 0;
  for (const auto& p : history_) {
    covariance += (p.local_s - mean_t) * (p.offset_s - mean_o);
    variance += (p.local_s - mean_t) * (p.local_s - mean_t);
  }
  drift_ = variance > 0 ? covariance / variance : 0;
}

}  // namespace collbench
