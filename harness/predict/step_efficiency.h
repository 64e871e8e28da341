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
};

struct StepEfficiency {
  double exposed_s = 0;
  double efficiency = 0;
  Interval efficiency_ci;  // from the prediction's interval
};

StepEfficiency step_efficiency(const RankPrediction& collective, const StepShape& step);

// Of the terms of the collective's time, the one that grows most from `fewer` to `more` ranks:
// "latency" or "bandwidth".
std::string_view fastest_growing_term(const RankPrediction& fewer, const RankPrediction& more);

}  // namespace collbench
