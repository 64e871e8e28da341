#include "harness/predict/tail_amplification.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "harness/fit/bootstrap.h"
#include "harness/predict/lag_distribution.h"
#include "harness/stats/summary.h"
#include "harness/stats/uniform_index.h"

namespace collbench {
namespace {

// The share of the largest lags the Pareto tail is fitted to: 5% of 2,000 lags is 100, enough
// for its two moments, and still the tail.
constexpr double kExceedanceShare = 0.05;
// Slowest-of-P times drawn per sample: two halve the resampling noise of the p99 for twice the
// time; eight gained no coverage on planted data.
constexpr std::size_t kDrawsPerSample = 2;

// A lag or a time, with the sample it came from (for the bootstrap's counts).
struct Lag {
  double seconds;
  std::size_t sample;
};

struct SplitSamples {
  std::vector<double> common;  // per sample
  std::vector<Lag> lags;       // ascending
  std::vector<Lag> times;      // every rank's time, ascending, with its sample
};

SplitSamples split(const RawSamples& samples) {
  SplitSamples split;
  const auto ranks = static_cast<std::size_t>(samples.nranks);
  for (std::size_t s = 0; s < samples.sample_count(); ++s) {
    const std::span<const double> row(samples.per_rank_seconds.data() + s * ranks, ranks);
    split.common.push_back(*std::ranges::min_element(row));
    for (double time : row) {
      split.lags.push_back({time - split.common.back(), s});
      split.times.push_back({time, s});
    }
  }
  std::ranges::sort(split.lags, {}, &Lag::seconds);
  std::ranges::sort(split.times, {}, &Lag::seconds);
  return split;
}

double uniform_open(std::mt19937_64& engine) {
  return (static_cast<double>(engine() >> 11) + 0.5) * 0x1p-53;
}

struct Estimate {
  double median_s = 0;
  double p99_over_median = 0;
  double tail_s = 0;
};

double weighted_median(std::span<const Lag> sorted, std::span<const std::size_t> counts,
                       std::size_t total) {
  std::size_t seen = 0;
  for (const Lag& value : sorted) {
    seen += counts[value.sample];
    if (2 * seen >= total) return value.seconds;
  }
  return sorted.back().seconds;
}

// One estimate per rank count, from the samples drawn `counts` times each (all 1: the samples
// themselves).
std::vector<Estimate> estimate(const SplitSamples& split, std::span<const std::size_t> counts,
                               std::span<const double> ranks, std::mt19937_64& engine) {
  std::vector<double> common;
  for (std::size_t s = 0; s < counts.size(); ++s) common.insert(common.end(), counts[s], split.common[s]);
  std::vector<double> lags;
  lags.reserve(split.lags.size());
  for (const Lag& lag : split.lags) lags.insert(lags.end(), counts[lag.sample], lag.seconds);
  const auto exceedances = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::lround(kExceedanceShare * static_cast<double>(lags.size()))), 1,
      lags.size() - 1);
  const LagDistribution distribution(std::move(lags), exceedances);

  // The largest of P uniform draws is U^(1/P), so the largest of P lags is the lag exceeded with
  // probability 1 − U^(1/P); one U per draw serves every P, which keeps the curve over P smooth.
  std::vector<double> log_uniform(common.size() * kDrawsPerSample);
  for (double& value : log_uniform) value = std::log(uniform_open(engine));
  // One rank's median is measured directly: it needs no extrapolation.
  const double one_rank_median = weighted_median(split.times, counts, split.times.size());
  std::vector<double> times(log_uniform.size());
  std::vector<Estimate> estimates;
  for (double p : ranks) {
    for (std::size_t i = 0; i < times.size(); ++i)
      times[i] = common[i / kDrawsPerSample] +
                 distribution.upper_quantile(-std::expm1(log_uniform[i] / p));
    std::ranges::sort(times);
    const double median = percentile_of_sorted(times, 50);
    estimates.push_back({.median_s = median,
                         .p99_over_median = percentile_of_sorted(times, 99) / median,
                         .tail_s = median - one_rank_median});
  }
  return estimates;
}

}  // namespace

bool tail_predictable(const RawSamples& samples) {
  return samples.nranks >= 2 && samples.sample_count() >= 6;
}

std::vector<TailPrediction> predict_tail(const RawSamples& samples, std::span<const double> ranks,
                                         const TailOptions& options) {
  const SplitSamples parts = split(samples);
  const std::size_t count = parts.common.size();
  std::mt19937_64 engine(options.seed);
  std::vector<std::size_t> counts(count, 1);
  const std::vector<Estimate> point = estimate(parts, counts, ranks, engine);
  std::vector<std::vector<Estimate>> replicates;
  for (int replicate = 0; replicate < options.bootstrap_replicates; ++replicate) {
    std::ranges::fill(counts, 0);
    for (std::size_t draw = 0; draw < count; ++draw) ++counts[uniform_index(engine, count)];
    replicates.push_back(estimate(parts, counts, ranks, engine));
  }
  std::vector<TailPrediction> predictions;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto interval = [&](double Estimate::*field) {
      if (replicates.empty()) return Interval{std::nan(""), std::nan("")};
      std::vector<double> values;
      for (const auto& replicate : replicates) values.push_back(replicate[i].*field);
      return central_95(std::move(values));
    };
    predictions.push_back({.ranks = ranks[i],
                           .median_s = point[i].median_s,
                           .median_ci = interval(&Estimate::median_s),
                           .p99_over_median = point[i].p99_over_median,
                           .p99_over_median_ci = interval(&Estimate::p99_over_median),
                           .tail_s = point[i].tail_s,
                           .tail_ci = interval(&Estimate::tail_s)});
  }
  return predictions;
}

}  // namespace collbench
