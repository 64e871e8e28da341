#pragma once

namespace collbench {

// A confidence interval [low, high].
struct Interval {
  double low = 0;
  double high = 0;

  bool contains(double value) const { return low <= value && value <= high; }
};

}  // namespace collbench
