#pragma once
// Samples kept in order as they arrive, so that a stopping rule can read exact order statistics
// after every sample at a cost that grows as sqrt(n), not n: the recent samples sit in a short
// sorted run (an insertion moves at most its length) that is merged into the main run once it
// reaches sqrt(2n), and an order statistic of the two runs is found by bisection.
#include <cstddef>
#include <vector>

namespace collbench {

class SortedSamples {
 public:
  void add(double value);
  std::size_t size() const { return main_.size() + recent_.size(); }
  // The k-th smallest (0-based), k < size().
  double at(std::size_t k) const;
  void clear();

 private:
  std::vector<double> main_;
  std::vector<double> recent_;
  std::vector<double> merged_;  // kept so that merging allocates only when the samples grow
  // Below 32 the recent run is merged at once: a merge of a few dozen values costs less than
  // bookkeeping would save.
  static constexpr std::size_t kShortestRecentRun = 32;
  std::size_t longest_recent_run_ = kShortestRecentRun;  // sqrt(2n) after the last merge
};

}  // namespace collbench
