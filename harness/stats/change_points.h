#pragma once
// Change points in a nightly series of one point's median times (`collbench trend`): binary
// segmentation as in E-Divisive means (Matteson and James; MongoDB, ICPE 2020) with the two-sample
// t statistic of Apache Otava (Hunter) as its measure. On the logs of the times: of every split
// of a stretch, and every stretch in its middle (E-Divisive's second index: a regression and its
// fix), the level that differs most from the rest in Student's t (pooled variance) is a change
// when its p-value, Bonferroni-corrected over every candidate, is at most `alpha` and its
// geometric mean differs from the rest's by at least `min_magnitude`; each part is then searched
// again. A permutation test (E-Divisive's) cannot reach a small p-value on the six to a dozen
// nights a history starts with: six values have 720 orders, and 72 of them split 3/3 alike.
#include <cstddef>
#include <span>
#include <vector>

namespace collbench {

struct ChangePointOptions {
  double alpha = 0.05;          // after the correction over split positions
  double min_magnitude = 0.05;  // relative change of the geometric mean, either way
  std::size_t min_segment = 2;  // runs on each side: one alone is an outlier, not a level
};

struct ChangePoint {
  std::size_t index = 0;  // the first run of the new level
  double before = 0;      // geometric mean of the segment before it, up to the previous change
  double after = 0;       // and of the segment it starts
  double p_value = 0;     // Bonferroni-corrected, when it was found
};

// In run order. `series`: positive times, oldest first.
std::vector<ChangePoint> change_points(std::span<const double> series,
                                       const ChangePointOptions& options = {});

}  // namespace collbench
