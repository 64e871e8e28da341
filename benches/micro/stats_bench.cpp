// What the statistics cost the harness: summarize once per point, add + decide once per sample,
// a bootstrap replicate's median (compare draws 2,000 per side and point).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "harness/stats/resampled_median.h"
#include "harness/stats/stopping_rule.h"
#include "harness/stats/summary.h"
#include "harness/stats/uniform_index.h"

namespace collbench {
namespace {

// Timing-like samples: lognormal around 1 ms with a 30% spread, in arrival order.
std::vector<double> noisy_samples(std::size_t count) {
  std::mt19937 engine(12345);
  std::lognormal_distribution<double> distribution(std::log(1e-3), 0.3);
  std::vector<double> samples(count);
  for (double& sample : samples) sample = distribution(engine);
  return samples;
}

void BM_Summarize(benchmark::State& state) {
  const std::vector<double> samples = noisy_samples(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(summarize(samples));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Summarize)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000);

// One point's whole stream, reported per sample (`per_sample`, in seconds) averaged over a stream
// growing from 1 to N. A target nobody reaches and no minimum time make decide()
// compute the median interval after every sample, its most expensive path; in a later round,
// earlier rounds that agree with it make it also ask them after every sample.
void add_and_decide(benchmark::State& state, std::vector<RoundMedian> earlier_rounds) {
  const std::vector<double> samples = noisy_samples(static_cast<std::size_t>(state.range(0)));
  StoppingRule rule;
  rule.min_time_s = 0;
  rule.target_ci = 0;
  rule.max_time_s = 1e9;
  rule.rounds = 3;
  for (auto _ : state) {
    StoppingState stopping(rule, std::nullopt, earlier_rounds);
    double elapsed_s = 0;
    for (double sample : samples) {
      stopping.add(sample);
      elapsed_s += sample;
      benchmark::DoNotOptimize(stopping.decide(elapsed_s));
    }
  }
  const auto samples_fed = static_cast<double>(state.iterations() * state.range(0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["per_sample"] =
      benchmark::Counter(samples_fed, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_AddAndDecidePerSample(benchmark::State& state) { add_and_decide(state, {}); }
BENCHMARK(BM_AddAndDecidePerSample)->Arg(100)->Arg(1000)->Arg(10000);

void BM_AddAndDecidePerSampleInALaterRound(benchmark::State& state) {
  add_and_decide(state, {{1e-3, 1e-4}, {1e-3, 1e-4}});
}
BENCHMARK(BM_AddAndDecidePerSampleInALaterRound)->Arg(100)->Arg(1000)->Arg(10000);

void BM_ResampledMedian(benchmark::State& state) {
  std::vector<double> sorted = noisy_samples(static_cast<std::size_t>(state.range(0)));
  std::ranges::sort(sorted);
  std::mt19937_64 engine(1);
  for (auto _ : state) benchmark::DoNotOptimize(resampled_median(sorted, engine));
}
BENCHMARK(BM_ResampledMedian)->Arg(6)->Arg(100)->Arg(5000);

// The same median, drawing the resample index by index: what resampled_median replaces.
void BM_ResampledMedianIndexByIndex(benchmark::State& state) {
  const std::vector<double> samples = noisy_samples(static_cast<std::size_t>(state.range(0)));
  std::vector<double> resample(samples.size());
  std::mt19937_64 engine(1);
  for (auto _ : state) {
    for (double& value : resample) value = samples[uniform_index(engine, samples.size())];
    const auto middle = resample.begin() + static_cast<std::ptrdiff_t>(resample.size() / 2);
    std::ranges::nth_element(resample, middle);
    benchmark::DoNotOptimize(*middle);
  }
}
BENCHMARK(BM_ResampledMedianIndexByIndex)->Arg(6)->Arg(100)->Arg(5000);

}  // namespace
}  // namespace collbench
