// What the record costs the harness: one append_point per finished point, its flush included.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "benches/micro/synthetic_point.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

void BM_AppendPoint(benchmark::State& state) {
  const auto sample_count = static_cast<int>(state.range(0));
  const auto rank_count = static_cast<int>(state.range(1));
  const PointResult point = synthetic_point(sample_count, rank_count);
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
