#pragma once
// When to stop sampling a point: decided on rank 0 from the slowest-rank sample times.
// Precedence: a fixed count (-n); the target interval, or rounds that already disagree, once
// --min-samples and --min-time are met; the sweep's --time-limit; --max-time, but never before
// --min-samples.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "harness/stats/interval.h"
#include "harness/stats/rounds.h"
#include "harness/stats/sorted_samples.h"
#include "harness/stats/stop_reason.h"

namespace collbench {

struct StoppingRule {
  std::size_t min_samples = 10;
  double min_time_s = 0;  // no floor by default: time goes where precision is missing
  double target_ci = 0.01;  // CI half-width of the median, relative to the median
  double max_time_s = 1.0;
  std::optional<std::size_t> fixed_samples;  // -n: exactly this many, no adaptive stop
  // The point's rounds, when this rule is one round's share of it: a round stops as
  // round_noise once the point's interval can no longer reach `point_target_ci`.
  int rounds = 1;
  double point_target_ci = 0.01;
  // How finely a sample is read: the timer's step over the operations it times. No point is
  // held to a finer interval than a few of it (stats/reading_step.h); 0: no step.
  double sample_step_s = 0;
};

// One round's share of a point's rule: R rounds whose medians are each within target·sqrt(R)
// pool to about the target, in the point's time budget and sample floor.
StoppingRule round_share(const StoppingRule& point_rule, int rounds);

// Feed samples one by one; it says when to stop and why. `time_left_s` is what remains of the
// sweep's --time-limit when the point starts, if there is one; `earlier_rounds` the medians of
// the point's rounds measured before this one.
class StoppingState {
 public:
  StoppingState(const StoppingRule& rule, std::optional<double> time_left_s,
                std::span<const RoundMedian> earlier_rounds = {});

  void add(double sample_s) { sorted_.add(sample_s); }
  std::optional<StopReason> decide(double elapsed_s) const;
  std::size_t samples() const { return sorted_.size(); }
  // Forgets the samples (their loop was resized); the clock keeps running.
  void restart() { sorted_.clear(); }
  // The samples from now on are read in steps of `step` (a loop of another length).
  void read_in_steps_of(double step);

 private:
  struct MedianInterval {
    double median = 0;
    Interval interval;
  };
  std::optional<MedianInterval> median_interval() const;

  StoppingRule rule_;
  std::optional<double> time_left_s_;
  std::vector<RoundMedian> earlier_;
  RoundsSoFar earlier_rounds_;
  SortedSamples sorted_;
};

}  // namespace collbench
