#pragma once
// A latency sample that starts every rank at one moment of a common clock (docs/DESIGN.md, "timing
// modes"): rank 0 names t0 a margin ahead, every rank waits for t0 on its model of rank 0's
// clock, runs one operation, and reports when it arrived, started and ended. The sample is the
// latest end minus t0; a rank that learnt of t0 only after t0 had passed makes it invalid.
#include <cstddef>
#include <deque>
#include <span>

namespace collbench {

// One rank's view of one sample, on rank 0's clock, relative to t0.
struct WindowReport {
  double slack_s = 0;           // t0 minus the moment it learnt t0: negative means late
  double start_lateness_s = 0;  // its operation's start minus t0
  double end_s = 0;             // its operation's end minus t0
};

// What judging a sample needs of every rank's report, reduced by maximum over ranks, which
// costs O(log p) messages where the reports would cost a gather.
struct WindowMaxima {
  double end_s = 0;              // the latest end
  double learnt_after_t0_s = 0;  // the largest -slack_s: positive when a rank learnt t0 late
};

struct WindowVerdict {
  bool valid = true;
  double time_s = 0;  // the latest end
};

WindowVerdict judge_window(const WindowMaxima& maxima);

// The lead rank 0 gives t0. It starts from what a broadcast takes, doubles whenever invalid
// samples become frequent, and halves again, down to where it started, after a long run of
// valid ones: a margin costs idle time before every sample (never time in one), so one noisy
// moment must not make every later sample of the run wait for it.
class MarginController {
 public:
  static constexpr double kMinimumSeconds = 10e-6;
  static constexpr double kMaximumSeconds = 1.0;
  static constexpr std::size_t kRecent = 20;      // samples remembered
  static constexpr std::size_t kWidenAfter = 2;   // invalid ones among them that widen it
  static constexpr std::size_t kNarrowAfter = 200;  // valid ones in a row that narrow it

  // Four times the median broadcast delay plus the clocks' uncertainty, at least the minimum.
  static double initial(std::span<const double> broadcast_delays_s, double clock_uncertainty_s);

  explicit MarginController(double margin_s);
  double margin_s() const { return margin_s_; }
  void record(bool valid);

 private:
  double margin_s_;
  double narrowest_s_;
  std::deque<bool> recent_;
  std::size_t valid_in_a_row_ = 0;
};

}  // namespace collbench
