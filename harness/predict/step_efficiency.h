#pragma once
// A data-parallel training step: compute of C seconds, then the gradient's collective, of which
// the fraction `overlap` hides behind compute. Its scaling efficiency is C / (C + exposed
// communication), exposed = (1 − overlap)·T(p).
#include <string_view>

#include "harness/predict/rank_prediction.h"

namespace collbench {

struct StepShape {
  double compute_s = 0;
  double overlap = 0;  // 0: nothing hidden; 1: all of it
  // --overlap measured: each size takes the overlap measured beside its curve's points, and its
  // 95% interval (measured_overlap.h's step_at).
  bool measured_overlap = false;
  Interval overlap_ci{};
};

struct StepEfficiency {
  double exposed_s = 0;
  double efficiency = 0;
  Interval efficiency_ci;  // from the prediction's interval and the overlap's
};

StepEfficiency step_efficiency(const RankPrediction& collective, const StepShape& step);

// Of the terms of the collective's time, the one that grows most from `fewer` to `more` ranks:
// "latency", "bandwidth" or "tail". `tail_growth_s`: how much the slowest-of-p tail term grows
// between them (curve_tails.h), NaN where unknown. The families' terms hold the tail measured
// at the rank counts fitted, so a tail that grows most is one the families spread over them.
std::string_view fastest_growing_term(const RankPrediction& fewer, const RankPrediction& more,
                                      double tail_growth_s);

}  // namespace collbench
