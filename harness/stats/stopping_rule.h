#pragma once
// When to stop sampling a point: decided on rank 0 from the slowest-rank sample times.
// Precedence: a fixed count (-n); the target interval, once --min-samples and --min-time are
// met; the sweep's --time-limit; --max-time, but never before --min-samples.
#include <cstddef>
#include <optional>
#include <vector>

#include "harness/stats/sorted_samples.h"
#include "harness/stats/stop_reason.h"

namespace collbench {

struct StoppingRule {
  std::size_t min_samples = 10;
  double min_time_s = 0;  // no floor by default: time goes where precision is missing
  double target_ci = 0.01;  // CI half-width of the median, relative to the median
  double max_time_s = 1.0;
  std::optional<std::size_t> fixed_samples;  // -n: exactly this many, no adaptive stop
};

// Feed samples one by one; it says when to stop and why. `time_left_s` is what remains of the
// sweep's --time-limit when the point starts, if there is one.
class StoppingState {
 public:
  StoppingState(const StoppingRule& rule, std::optional<double> time_left_s);

  void add(double sample_s) { sorted_.add(sample_s); }
  std::optional<StopReason> decide(double elapsed_s) const;
  std::size_t samples() const { return sorted_.size(); }
  // Forgets the samples (their loop was resized); the clock keeps running.
  void restart() { sorted_.clear(); }

 private:
  bool median_is_tight() const;

  StoppingRule rule_;
  std::optional<double> time_left_s_;
  SortedSamples sorted_;
};

}  // namespace collbench
