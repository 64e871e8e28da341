#pragma once
// How a measuring command (`run`, `links`) samples each point: its warm-up, its rounds, when to
// stop, and how long a rank may wait on its peers. Resolved once from the command line
// (cli/sampling_options.h) and held whole down to the code that samples.
#include "harness/measure/fault_guard.h"
#include "harness/stats/stopping_rule.h"

namespace collbench {

// Three rounds: the fewest that give the spread between rounds two degrees of freedom, so that
// a point's interval can include it; each round gets a third of the point's time budget.
inline constexpr int kDefaultRounds = 3;

struct Sampling {
  int warmup = 5;  // untimed operations (run) or samples (links) before a point's first round
  // Interleaved rounds per point (docs/DESIGN.md, "Stopping"); `stopping` is the whole point's
  // rule, each round stopping at its share (round_share).
  int rounds = kDefaultRounds;
  StoppingRule stopping{};
  Watchdog watchdog{};
};

}  // namespace collbench
