#pragma once
// A point is measured in interleaved rounds; each round comes back from the row runner as a
// PointResult of its own. These gather the rounds into the point, and give it the statistics of
// every sample and an interval that includes the spread between rounds.
#include <span>
#include <vector>

#include "harness/plan/point.h"
#include "harness/stats/rounds.h"

namespace collbench {

// The order in which round `round` of `rounds` visits `rows` rows (a curve's sizes):
// reshuffled (seeded by `seed` and the round) in every round but the last, which keeps the
// sweep's order so that the table and the file grow row by row in order. The same on every
// rank.
std::vector<std::size_t> round_order(std::size_t rows, int round, int rounds, std::uint64_t seed);

// Appends `round` to `point`: its samples after the point's, a stop reason that keeps the worst
// (a limit hit in any round), the check before timing of the first round and the check after
// timing of the last. Works on every rank.
void add_round(PointResult& point, PointResult round);

// The median of each round's slowest-rank times (rank 0 holds them).
std::vector<RoundMedian> round_estimates_of(const PointResult& point);

// On every rank: the median of its own times over the point's rounds; NaN where it took no part.
double own_median(const PointResult& point);
// On every rank: the mean of its own times over the point's rounds; NaN where it took no part.
double own_mean(const PointResult& point);

// OSU's figure for `point` from its ranks' own_mean (one per rank that ran it): their average
// at a latency point started at a barrier, NaN at any other (a window sample's own time is its
// end after t0, not its operation's time).
double osu_mean(const PointResult& point, std::span<const double> rank_means);

// On rank 0, once the rounds are in: the statistics of every sample, the bandwidths, and the
// median's interval widened by the samples' step and the spread between rounds; a point whose
// rounds all converged but whose interval is wider than `target_ci` (or than the steps a point
// is held to, stats/reading_step.h) stops as round_noise. The ranks' medians come
// from the ranks (own_median).
void finish_point(PointResult& point, double target_ci);

}  // namespace collbench
