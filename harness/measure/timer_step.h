#pragma once
// How finely a timer reads a duration. A clock can count nanoseconds and still move in coarser
// steps: on an AMD EPYC guest under kvm-clock every interval reads as a multiple of 10.02 ns
// (the TSC moves 21 ticks of its 2.096 GHz at a time), so a 0.6 us median can only be one of
// ..., 0.591, 0.601, 0.611 us, and the order statistics that bound it tie. A median is then
// known to a step at best, whatever the sample count: the statistics widen its interval by a
// step, and the stopping rule holds no point to less than that (stats/stopping_rule.h).
#include <span>

#include "backends/communicator.h"

namespace collbench {

inline constexpr double kSmallestStepSeconds = 5e-9;
inline constexpr double kLargestStepSeconds = 100e-9;

// The coarsest step of kSmallestStepSeconds to kLargestStepSeconds that at least 95% of
// `durations` lie on, to 1%, within 1.5 ns of a multiple (a clock's nanoseconds are rounded at
// both readings); 0 when none does or the durations span fewer than four of it. They must
// spread evenly over that span, as measure_timer_step's do.
double reading_step(std::span<const double> durations);

// Times 2,000 spins of 0 to 500 ns with `timer` (about a millisecond) and returns their
// reading_step: the timer's step; 0 when it has none of at least 5 ns (or one above 100 ns,
// which spins that short cannot show).
double measure_timer_step(Timer& timer);

// Collective over `world`: the coarsest step of its ranks' timers, on every rank.
double job_timer_step(Communicator& world);

}  // namespace collbench
