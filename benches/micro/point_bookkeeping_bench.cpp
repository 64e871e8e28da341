// What rank 0 spends on one finished point as the rank count p grows, outside the measuring:
// its statistics and its record (samples, rank medians and row appended and flushed), from
// what reaches it: every sample's slowest time (the control plane's maxima), the rows the
// record keeps, and one median per rank (each rank finds its own). Synthetic per-rank streams,
// no MPI: the growth with p of what a 1,024-rank job pays per point.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <span>
#include <string>

#include "benches/micro/synthetic_point.h"
#include "harness/measure/point_rounds.h"
#include "harness/plan/sizes.h"
#include "harness/plan/sweep_plan.h"
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
// The target at 1,024 ranks: a point of 1-ms samples holds 1,000 in its 1-s budget
// (--max-time), one of 2-ms samples 500, all of them kept; its bookkeeping against 1 s.
BENCHMARK(BM_PointBookkeeping)
    ->ArgNames({"samples", "ranks", "keep"})
    ->Args({1000, 1024, static_cast<int>(KeepSamples::capped)})
    ->Args({500, 1024, static_cast<int>(KeepSamples::capped)})
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// The file of a default sweep (8 B to 64 MiB, the three collectives, both modes) at `ranks`
// ranks, every point keeping `samples` rows: with capped's 1,000, the largest a capped file of
// that sweep gets. Latency points start in windows and keep their start lateness too. What
// counts is file_GiB; the time includes copying each synthetic point.
void BM_DefaultSweepFile(benchmark::State& state) {
  const auto samples = static_cast<int>(state.range(0));
  const auto ranks = static_cast<int>(state.range(1));
  const std::span<const CollectiveKind> collectives = all_collectives();
  const SweepPlan plan = plan_sweep({.sizes = sweep_sizes({}),
                                     .collectives = {collectives.begin(), collectives.end()},
                                     .datatypes = {DataType::float32},
                                     .reduce_ops = {ReduceOp::sum}},
                                    ranks);
  const PointResult latency = synthetic_point(samples, ranks);
  PointResult bandwidth = latency;
  bandwidth.key.mode = Mode::bandwidth;
  bandwidth.samples.start_lateness_seconds.clear();
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("collbench-sweep-file-bench-" + std::to_string(getpid()) + ".h5");
  std::size_t points = 0;
  for (auto _ : state) {
    ResultWriter writer(path, true, KeepSamples::capped);
    points = 0;
    for (const PlannedRow& row : plan.rows)
      for (const PointResult* kind : std::array<const PointResult*, 2>{&latency, &bandwidth}) {
        PointResult point = *kind;
        point.key.collective = row.collective;
        point.key.size_bytes = row.shape.size_bytes;
        point.key.count = row.shape.count;
        writer.append_point(point);
        ++points;
      }
    writer.finish("2026-01-01T00:00:00Z");
  }
  state.counters["points"] = static_cast<double>(points);
  state.counters["file_GiB"] =
      static_cast<double>(std::filesystem::file_size(path)) / (1024.0 * 1024 * 1024);
  std::filesystem::remove(path);
}
BENCHMARK(BM_DefaultSweepFile)
    ->ArgNames({"samples", "ranks"})
    ->Args({1000, 1024})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace collbench
