#pragma once
// Where a curve rises faster than its size. One alpha-beta line, T(n) = alpha + beta·n with
// alpha and beta at least 0, never does: T(kn) <= k·T(n). A time that grows by more than the
// size between two neighbouring sizes, beyond both medians' intervals, is a change of regime:
// a protocol switch (Open MPI's shared-memory eager limit, 4 KiB by default, where a 2x step in
// size costs 2.6-4.6x on the demo machine), an algorithm switch, or a cache outgrown (8 to 16
// MiB there). The
// fit's headline names the steepest one when it misfits, so that its reason is the physics.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "harness/stats/interval.h"

namespace collbench {

struct RegimeStep {
  std::size_t from_bytes = 0;
  std::size_t to_bytes = 0;
  double time_ratio = 0;  // of the medians
  double size_ratio = 0;
};

// Over neighbouring sizes (ascending), the largest ratio of medians whose intervals rule out a
// rise no faster than the size: the lower end of the larger size's interval above the size
// ratio times the upper end of the smaller's. None where there is no such step.
std::optional<RegimeStep> steepest_regime_step(std::span<const std::size_t> sizes,
                                               std::span<const double> medians,
                                               std::span<const Interval> intervals);

// "the time steps 2.9x from 4 KiB to 8 KiB, faster than the size (2x): a switch of protocol or
// algorithm, or a cache outgrown, that one line cannot follow"
std::string describe(const RegimeStep& step);

}  // namespace collbench
