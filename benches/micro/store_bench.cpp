// What the record costs the harness: one append_point per finished point, its flush included.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>

#include "harness/store/result_file.h"

namespace collbench {
namespace {

// Timing-like samples (lognormal around 100 us), which compress about as badly as real ones.
PointResult measured_point(int sample_count, int rank_count) {
  std::mt19937 engine(12345);
  std::lognormal_distribution<double> distribution(std::log(1e-4), 0.3);
  PointResult point;
  point.key = {.backend = "mpi",
               .placement = Placement::world,
               .nranks = rank_count,
               .mode = Mode::latency,
               .size_bytes = 1 << 20,
               .count = 1 << 18,
               .algorithm = {},
               .protocol = {}};
  point.summary = {.samples = static_cast<std::size_t>(sample_count), .median = 1e-4};
  point.samples.nranks = rank_count;
  for (int rank = 0; rank < rank_count; ++rank) point.samples.world_ranks.push_back(rank);
  point.samples.per_rank_seconds.resize(static_cast<std::size_t>(sample_count) * rank_count);
  for (double& sample : point.samples.per_rank_seconds) sample = distribution(engine);
  point.rank_median_seconds.assign(rank_count, 1e-4);
  return point;
}

void BM_AppendPoint(benchmark::State& state) {
  const auto sample_count = static_cast<int>(state.range(0));
  const auto rank_count = static_cast<int>(state.range(1));
  const PointResult point = measured_point(sample_count, rank_count);
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("collbench-store-bench-" + std::to_string(getpid()) + ".h5");
  {
    ResultWriter writer(path, true);
    for (auto _ : state) writer.append_point(point);
  }
  state.counters["file_bytes_per_point"] = static_cast<double>(std::filesystem::file_size(path)) /
                                           static_cast<double>(state.iterations());
  std::filesystem::remove(path);
  state.SetBytesProcessed(state.iterations() * sample_count * rank_count *
                          static_cast<std::int64_t>(sizeof(double)));
}
// A fixed count, the points of a large sweep: the cost grows with the points already in the file.
BENCHMARK(BM_AppendPoint)
    ->ArgNames({"samples", "ranks"})
    ->Args({100, 4})
    ->Args({1000, 16})
    ->Iterations(1000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace collbench
