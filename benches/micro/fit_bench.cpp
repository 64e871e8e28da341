// What the model fits cost per curve: the segmentation of its medians, and the bootstrap of
// its intervals, which refits every replicate.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "harness/fit/bootstrap.h"
#include "harness/fit/piecewise_fit.h"

namespace collbench {
namespace {

struct NoisyCurve {
  std::vector<double> sizes;
  std::vector<std::vector<double>> samples;  // per size
  std::vector<double> medians;
};

// `size_count` sizes spaced geometrically over 8 B .. 64 MiB, a jump at 64 KiB (eager to
// rendezvous), 3% lognormal noise.
NoisyCurve noisy_curve(std::size_t size_count, std::size_t samples_per_size) {
  std::mt19937 engine(12345);
  std::lognormal_distribution<double> noise(0, 0.03);
  const double factor = std::pow(64.0 * 1024 * 1024 / 8, 1.0 / static_cast<double>(size_count - 1));
  NoisyCurve curve;
  double size = 8;
  for (std::size_t i = 0; i < size_count; ++i, size *= factor) {
    const double time = size < 65536 ? 5e-6 + size / 10e9 : 30e-6 + size / 12e9;
    std::vector<double> samples(samples_per_size);
    for (double& sample : samples) sample = time * noise(engine);
    std::vector<double> sorted = samples;
    std::ranges::sort(sorted);
    const std::size_t middle = sorted.size() / 2;
    curve.medians.push_back(sorted.size() % 2 == 1 ? sorted[middle]
                                                   : (sorted[middle - 1] + sorted[middle]) / 2);
    curve.sizes.push_back(size);
    curve.samples.push_back(std::move(samples));
  }
  return curve;
}

void BM_FitPiecewise(benchmark::State& state) {
  const NoisyCurve curve = noisy_curve(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(fit_piecewise(curve.sizes, curve.medians));
}
BENCHMARK(BM_FitPiecewise)->Arg(24)->Arg(40)->Unit(benchmark::kMicrosecond);

// 24 sizes × 50 samples, 200 replicates (each fitted afresh): one curve's intervals.
void BM_BootstrapIntervals(benchmark::State& state) {
  const NoisyCurve curve = noisy_curve(24, 50);
  const PiecewiseFit fit = fit_piecewise(curve.sizes, curve.medians);
  const int replicates = static_cast<int>(state.range(0));
  for (auto _ : state)
    benchmark::DoNotOptimize(
        bootstrap_intervals(fit, curve.sizes, curve.samples, replicates, 2024));
  state.counters["segments"] = static_cast<double>(fit.segments.size());
}
BENCHMARK(BM_BootstrapIntervals)->Arg(200)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace collbench
