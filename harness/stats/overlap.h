#pragma once
// What a compute load beside a collective cost the two (`run --overlap-load`, docs/DESIGN.md's
// overlap): from samples of the load alone, the collective alone, and the two started together,
// each the slowest rank's. A data-parallel step whose compute takes L alone and whose
// collective takes T alone lasts S with the two side by side; S − L is the communication the
// step could not hide, and the share hidden, 1 − (S − L)/T, is what `predict --overlap
// measured` uses: 1 when the two never meet, 0 when they take turns, below 0 when together
// they take longer than one after the other.
#include <cstdint>
#include <vector>

#include "harness/stats/interval.h"
#include "harness/stats/no_value.h"

namespace collbench {

struct OverlapMeasure {
  double collective_slowdown = kNoValue;  // median beside the load over median alone
  double load_slowdown = kNoValue;        // median beside the collective over median alone
  double hidden = kNoValue;               // 1 − (S − L)/T, of medians
  Interval hidden_ci{kNoValue, kNoValue};    // 95%, bootstrap over the samples of each series
  bool measured() const { return hidden == hidden; }
};

// Per sample, the slowest rank's seconds; every series non-empty. `steps[i]`: the later of
// the load's and the collective's end in sample i beside each other.
struct OverlapSamples {
  std::vector<double> load_alone;
  std::vector<double> collective_alone;
  std::vector<double> load_beside;
  std::vector<double> collective_beside;
  std::vector<double> steps;
};

OverlapMeasure measure_overlap(const OverlapSamples& samples, int bootstrap_replicates = 200,
                               std::uint64_t seed = 1);

}  // namespace collbench
