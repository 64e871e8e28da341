#include "harness/measure/start_window.h"

#include <algorithm>

#include "harness/stats/summary.h"

namespace collbench {

WindowVerdict judge_window(const WindowMaxima& maxima) {
  return {.valid = !(maxima.learnt_after_t0_s > 0), .time_s = maxima.end_s};
}

double MarginController::initial(std::span<const double> broadcast_delays_s,
                                 double clock_uncertainty_s) {
  const double median = summarize(broadcast_delays_s).median;  // 0 when there are none
  return std::clamp(4 * median + clock_uncertainty_s, kMinimumSeconds, kMaximumSeconds);
}

MarginController::MarginController(double margin_s)
    : margin_s_(std::clamp(margin_s, kMinimumSeconds, kMaximumSeconds)), narrowest_s_(margin_s_) {}

void MarginController::record(bool valid) {
  valid_in_a_row_ = valid ? valid_in_a_row_ + 1 : 0;
  if (valid_in_a_row_ >= kNarrowAfter) {
    margin_s_ = std::max(margin_s_ / 2, narrowest_s_);
    valid_in_a_row_ = 0;
  }
  recent_.push_back(valid);
  if (recent_.size() > kRecent) recent_.pop_front();
  if (static_cast<std::size_t>(std::count(recent_.begin(), recent_.end(), false)) < kWidenAfter)
    return;
  margin_s_ = std::min(2 * margin_s_, kMaximumSeconds);
  recent_.clear();
}

}  // namespace collbench
