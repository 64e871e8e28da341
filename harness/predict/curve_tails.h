#pragma once
// The slowest-of-p tail of one curve (tail_amplification.h) for `collbench predict`: at a size
// asked, from the point of the largest rank count measured nearest that size, the tail term and
// p99/median at each rank count asked; and, out of sample, the largest rank count's median and
// p99/median predicted from the second largest's point. Only latency points timed on the common
// clock (window starts) whose per-rank samples were read qualify. The tail is not added into the
// predicted time: the families are fitted to measured times that already hold it.
#include <optional>
#include <span>
#include <vector>

#include "harness/plan/point.h"
#include "harness/predict/tail_amplification.h"

namespace collbench {

// A measured point's p99/median: of its slowest-rank times, as its summary holds them.
struct MeasuredTailRatio {
  int ranks = 0;
  double size_bytes = 0;
  double p99_over_median = 0;
};

struct SizeTail {
  int from_ranks = 0;     // the point predicted from
  double from_bytes = 0;
  std::vector<MeasuredTailRatio> measured;  // per measured rank count, its point nearest the size
  std::vector<TailPrediction> asked;        // per rank count asked
};

struct TailCheck {
  int from_ranks = 0;
  int ranks = 0;
  double size_bytes = 0;  // of the largest rank count's point
  double predicted_median_s = 0;
  double predicted_p99_over_median = 0;
  double measured_median_s = 0;
  double measured_p99_over_median = 0;
  double median_error() const { return predicted_median_s / measured_median_s - 1; }
  double p99_over_median_error() const {
    return predicted_p99_over_median / measured_p99_over_median - 1;
  }
};

// A curve's points (one curve key, any rank count) that qualify.
std::vector<const PointResult*> tail_points(std::span<const PointResult> points,
                                            const PointKey& curve);

// nullopt without a qualifying point.
std::optional<SizeTail> predict_size_tail(std::span<const PointResult* const> points,
                                          double size_bytes, std::span<const double> ranks,
                                          const TailOptions& options);

// Per point of the largest rank count, from the second largest's point nearest its size; empty
// with fewer than two rank counts qualifying.
std::vector<TailCheck> validate_largest_tail(std::span<const PointResult* const> points,
                                             const TailOptions& options);

}  // namespace collbench
