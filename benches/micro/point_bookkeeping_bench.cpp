// What rank 0 spends on one finished point as the rank count p grows, outside the measuring:
// its statistics and its record (samples, rank medians and row appended and flushed), from
// what reaches it: every sample's slowest time (the control plane's maxima), the rows the
// record keeps, and one median per rank (each rank finds its own). Synthetic per-rank streams,
// no MPI: the growth with p of what a 1,024-rank job pays per point.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "benches/micro/synthetic_point.h"
#include "harness/measure/point_rounds.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

void BM_PointBookkeeping(benchmark::State& state) {
  const auto samples = static_cast<int>(state.range(0));
  const auto ranks = static_cast<int>(state.range(1));
  const auto keep = static_cast<KeepSamples>(state.range(2));
  state.SetLabel(std::string(name(keep)));
  PointResult sampled = synthetic_point(samples, ranks);
  sampled.slowest.seconds = slowest_rank_times(sampled.samples);
  sampled.samples = kept_samples(sampled.samples, keep);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("collbench-bookkeeping-bench-" + std::to_string(getpid()) + ".h5");
  {
    ResultWriter writer(path, true, keep);
    for (auto _ : state) {
      state.PauseTiming();
      PointResult point = sampled;
      state.ResumeTiming();
      finish_point(point, 0.01);
      writer.append_point(point);
    }
  }
  state.counters["file_bytes_per_point"] = static_cast<double>(std::filesystem::file_size(path)) /
                                           static_cast<double>(state.iterations());
  std::filesystem::remove(path);
}
// 10,000 samples: a latency point of 10 ms to 10 s, each --keep-samples choice.
BENCHMARK(BM_PointBookkeeping)
    ->ArgNames({"samples", "ranks", "keep"})
    ->ArgsProduct({{10000},
                   {2, 8, 64, 256, 1024},
                   {static_cast<int>(KeepSamples::all), static_cast<int>(KeepSamples::capped),
                    static_cast<int>(KeepSamples::summary)}})
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace collbench
