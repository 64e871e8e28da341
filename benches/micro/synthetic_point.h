#pragma once
// A point as a run hands it to rank 0's bookkeeping: `samples` samples of `ranks` ranks, timing-
// like (lognormal around 100 us), which compress about as badly as real ones, and each rank's
// start lateness, as a latency point in windows (the default) has.
#include <cmath>
#include <random>

#include "harness/plan/point.h"

namespace collbench {

inline PointResult synthetic_point(int samples, int ranks) {
  std::mt19937 engine(12345);
  std::lognormal_distribution<double> distribution(std::log(1e-4), 0.3);
  PointResult point;
  point.key = {.backend = "mpi",
               .placement = Placement::world,
               .nranks = ranks,
               .mode = Mode::latency,
               .size_bytes = 1 << 20,
               .count = 1 << 18,
               .algorithm = {},
               .protocol = {}};
  point.summary = {.samples = static_cast<std::size_t>(samples), .median = 1e-4};
  point.samples.nranks = ranks;
  for (int rank = 0; rank < ranks; ++rank) point.samples.world_ranks.push_back(rank);
  point.samples.per_rank_seconds.resize(static_cast<std::size_t>(samples) * ranks);
  for (double& sample : point.samples.per_rank_seconds) sample = as_recorded(distribution(engine));
  // A latency point starts in windows by default, and keeps each rank's start lateness too.
  point.samples.start_lateness_seconds = point.samples.per_rank_seconds;
  for (double& lateness : point.samples.start_lateness_seconds)
    lateness = as_recorded(lateness / 50);
  point.rank_median_seconds.assign(ranks, 1e-4);
  return point;
}

}  // namespace collbench
