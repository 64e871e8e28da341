#include "harness/stats/sorted_samples.h"

#include <algorithm>
#include <cmath>

namespace collbench {

void SortedSamples::add(double value) {
  recent_.insert(std::upper_bound(recent_.begin(), recent_.end(), value), value);
  if (recent_.size() < longest_recent_run_) return;
  merged_.resize(size());
  std::merge(main_.begin(), main_.end(), recent_.begin(), recent_.end(), merged_.begin());
  main_.swap(merged_);
  recent_.clear();
  longest_recent_run_ = std::max(
      kShortestRecentRun, static_cast<std::size_t>(std::sqrt(2.0 * static_cast<double>(main_.size()))));
}

// The k-th smallest of two sorted runs: the number i taken from the main run is the smallest
// for which main_[i] is not below the recent run's (k + 1 - i)-th. Bisection by halving a
// length, without a branch on the data (a mispredicted branch per step would cost more than
// the step).
double SortedSamples::at(std::size_t k) const {
  const std::size_t wanted = k + 1;
  std::size_t low = wanted > recent_.size() ? wanted - recent_.size() : 0;
  std::size_t length = std::min(wanted, main_.size()) - low;
  while (length > 0) {
    const std::size_t half = length / 2;
    const std::size_t from_main = low + half;
    const bool too_few = recent_[wanted - from_main - 1] > main_[from_main];
    low = too_few ? from_main + 1 : low;
    length = too_few ? length - half - 1 : half;
  }
  const std::size_t from_recent = wanted - low;
  if (low == 0) return recent_[from_recent - 1];
  if (from_recent == 0) return main_[low - 1];
  return std::max(main_[low - 1], recent_[from_recent - 1]);
}

void SortedSamples::clear() {
  main_.clear();
  recent_.clear();
  longest_recent_run_ = kShortestRecentRun;
}

}  // namespace collbench
