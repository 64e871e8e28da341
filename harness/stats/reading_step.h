#pragma once
// What a timer's step (harness/measure/timer_step.h) does to a median's precision. Samples read
// in steps of `step` take a few values only, and their median one of those. Where the samples
// spread over many steps their order statistics bound the median as they would without steps;
// where they spread over about one, they tie, and the interval they give can be a single value.
// The median of samples read in steps then lies within half a step of the true one (a sample at
// a fraction f of a step past a reading is read there with chance 1 - f, a step on with f), so
// every median interval is widened by half a step each side. Precision finer than the timer
// reads cannot be asked of a point either: it is held to kStepsHeld steps where its target is
// finer than that.
#include <algorithm>

#include "harness/stats/interval.h"

namespace collbench {

// A median whose interval ties on two neighbouring readings spans 1.5 steps from its lower
// one, once widened: two steps hold it with room for one more tie.
inline constexpr double kStepsHeld = 2;

inline Interval widened_by_step(const Interval& interval, double step) {
  return {interval.low - step / 2, interval.high + step / 2};
}

// The relative half-width a point of median `median` is held to: `target`, or kStepsHeld steps
// where those are wider.
inline double held_target(double target, double median, double step) {
  return median > 0 ? std::max(target, kStepsHeld * step / median) : target;
}

}  // namespace collbench
