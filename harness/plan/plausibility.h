#pragma once
// Whether a point's numbers can be true on the host that measured them (docs/reading-results.md,
// "Implausible points"). Each run measures, once before its sweep, how fast its ranks copy
// memory and how long a call that moves nothing takes; a point of two or more ranks whose bus
// bandwidth is far above the first, or whose time is far below the second, is marked: a
// collective that did not do its work looks like that, and validation on other operations
// cannot see it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/stats/no_value.h"

namespace collbench {

struct PointResult;

// How fast one size of buffer copied.
struct CopyRate {
  std::size_t bytes = 0;
  double gbps = 0;
};

// Measured by harness/measure/plausibility_bound.h, stored in the run's provenance.
struct PlausibilityBound {
  // The fastest copy of each size measured, ascending from sizes that fit the caches to the
  // run's largest buffer, by the fastest rank, all copying at once: every byte a collective
  // moves between ranks is copied at least once by the memory of one of them, out of buffers of
  // the point's size, so a rank's bus bandwidth cannot pass the copy of that size.
  std::vector<CopyRate> copy;
  // The median time of the library's collective with a count of 0, which both Open MPI and
  // NCCL return from at once (plausibility_bound.cpp cites where), on the fastest rank.
  double empty_call_s = kNoValue;

  // The rate that bounds a point of `bytes`: that of the largest size measured up to it (a
  // smaller copy stays in a nearer cache and runs faster), or of the smallest; kNoValue
  // without a measurement.
  double copy_gbps_for(std::size_t bytes) const;
};

// How far past the bound a point must lie. The bound is measured once, and a host moves between
// states up to 2.5 times apart; 4 leaves room for that and for rounding. ci/plausibility-rates
// measures how far below it real points stay and how far past it a dropped collective lands.
inline constexpr double kPlausibilityMargin = 4;

enum class Implausible : std::uint8_t { no, busbw_above_copy, time_below_empty_call };

// "" for no, so that a file's column is empty at a plausible point.
std::string_view name(Implausible mark);
std::optional<Implausible> parse_implausible(std::string_view text);

// From the point's median and busbw; `no` for a point of one rank, whose collectives move
// nothing between ranks (a one-rank broadcast may not even copy).
Implausible judge_plausibility(const PointResult& point, const PlausibilityBound& bound);

// What the mark means at `point`, in its numbers and the bound's where known (a run's, a file's
// provenance); empty at a plausible point.
std::string implausible_reason(const PointResult& point, const PlausibilityBound& bound = {});

// The bound as the run states it before its table.
std::string bound_text(const PlausibilityBound& bound);

}  // namespace collbench
