#pragma once
// Order statistics of a sample set, and the distribution-free confidence interval of its median.
#include <cstddef>
#include <span>
#include <vector>

namespace collbench {

struct Summary {
  std::size_t samples = 0;
  double median = 0;
  double min = 0;
  double p5 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1)
  double ci_low = 0;  // 95% confidence interval of the median
  double ci_high = 0;
};

// A Summary's times as every record and output names them, in microseconds and in this order:
// the columns of /points and /links, and the fields of JSON and CSV.
struct SummaryField {
  const char* name;
  double Summary::*seconds;
};
inline constexpr SummaryField kSummaryFields[] = {
    {"time_median_us", &Summary::median},
    {"time_min_us", &Summary::min},
    {"time_p5_us", &Summary::p5},
    {"time_p95_us", &Summary::p95},
    {"time_p99_us", &Summary::p99},
    {"time_max_us", &Summary::max},
    {"time_mean_us", &Summary::mean},
    {"time_stddev_us", &Summary::stddev},
    // Of this launch's median: the spread between launches is not in it (schema 16's name).
    {"time_median_ci_low_us", &Summary::ci_low},
    {"time_median_ci_high_us", &Summary::ci_high},
};

// Percentile q in [0, 100] of sorted values, interpolated linearly between closest ranks
// (numpy's default), so numbers compare with numpy.percentile.
double percentile_of_sorted(std::span<const double> sorted, double q);

// The median as percentile_of_sorted gives it (summarize(values).median), found by selection in
// linear time instead of a sort; reorders `values`.
double median_by_selection(std::span<double> values);
// Percentile q likewise.
double percentile_by_selection(std::span<double> values, double q);

struct MedianInterval {
  double low = 0;
  double high = 0;
  bool covers = false;  // false when the sample is too small for 95% coverage; then [min, max]
};

// The l of that interval for n samples: the largest l for which P(Binomial(n, 1/2) < l) <= 2.5%;
// 0 when n < 6, too few for 95% coverage.
std::size_t median_interval_rank(std::size_t n);

// 95% confidence interval of the median from order statistics: [x_(l), x_(n+1-l)] with the
// largest l for which P(Binomial(n, 1/2) < l) <= 2.5%. Needs no assumption on the distribution.
MedianInterval median_interval_of_sorted(std::span<const double> sorted);
// Whether n samples are enough for that interval to reach 95% coverage (n >= 6).
bool median_interval_covers(std::size_t n);

// The interval's wider side relative to the median; infinite without a covering interval.
double relative_ci_halfwidth(const Summary& summary);

Summary summarize(std::span<const double> values);

}  // namespace collbench
