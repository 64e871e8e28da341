#include "harness/stats/rounds.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/stats/student_t.h"
#include "harness/stats/summary.h"

namespace collbench {

std::vector<double> round_medians(std::span<const double> samples,
                                  std::span<const std::size_t> round_starts) {
  std::vector<double> medians;
  for (std::size_t j = 0; j < round_starts.size(); ++j) {
    const std::size_t begin = round_starts[j];
    const std::size_t end = j + 1 < round_starts.size() ? round_starts[j + 1] : samples.size();
    if (begin > end || end > samples.size())
      throw std::invalid_argument("round_medians: round starts out of order or past the samples");
    if (begin == end) continue;
    std::vector<double> round(samples.begin() + begin, samples.begin() + end);
    std::ranges::sort(round);
    medians.push_back(percentile_of_sorted(round, 50));
  }
  return medians;
}

LogSpread log_spread(std::span<const double> values) {
  LogSpread spread;
  spread.count = values.size();
  if (values.empty()) return spread;
  for (double value : values) spread.mean += std::log(value);
  spread.mean /= values.size();
  if (values.size() < 2) return spread;
  for (double value : values) spread.variance += std::pow(std::log(value) - spread.mean, 2);
  spread.variance /= values.size() - 1;
  return spread;
}

double round_noise_halfwidth(std::span<const double> round_medians, double confidence) {
  if (round_medians.size() < 2) return 0;
  const LogSpread spread = log_spread(round_medians);
  const double rounds = static_cast<double>(spread.count);
  return student_t_quantile(0.5 + confidence / 2, rounds - 1) * std::sqrt(spread.variance / rounds);
}

RoundsSoFar::RoundsSoFar(std::span<const double> medians, int rounds, double target,
                         double confidence)
    : earlier_(log_spread(medians)) {
  if (earlier_.count == 0 || rounds < 2) return;
  const double t = student_t_quantile(0.5 + confidence / 2, rounds - 1);
  most_squares_ = std::pow(std::log1p(target) / t, 2) * (rounds - 1) * rounds;
}

bool RoundsSoFar::cannot_converge(const Interval& current) const {
  if (most_squares_ <= 0 || !(current.low > 0)) return false;
  const double nearest = std::clamp(earlier_.mean, std::log(current.low), std::log(current.high));
  // Adding a value to k others adds k/(k+1) of its squared distance from their mean.
  const double known = static_cast<double>(earlier_.count);
  const double squares = earlier_.variance * (known - 1) +
                         known / (known + 1) * std::pow(nearest - earlier_.mean, 2);
  return squares > most_squares_;
}

Interval with_round_noise(const Interval& within, double center, double log_halfwidth) {
  if (!(center > 0) || !(log_halfwidth > 0)) return within;
  return {std::min(within.low, center * std::exp(-log_halfwidth)),
          std::max(within.high, center * std::exp(log_halfwidth))};
}

}  // namespace collbench
