// Appends points to a result file until it is killed, printing each point's number once
// append_point has returned: the points a reader of the killed file must find.
// Usage: append_until_killed FILE SEED
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "collectives/collective_kind.h"
#include "harness/store/result_file.h"

namespace {

using namespace collbench;

// Two ranks' times, between 5 and 3,000 samples a point as real points keep, every kind of
// text column filled, and start lateness on every other point as window-started points have.
// Each curve (collective, mode, datatype) takes its sizes in ascending order, as a run's do, so
// that `collbench fit` reads the killed file as it would a run's.
PointResult next_point(int index, std::mt19937& random) {
  const int curves = static_cast<int>(all_collectives().size()) * 2;
  const int step = index / curves;
  constexpr int kSizes = 24;
  PointResult point;
  point.key = {.backend = "mpi",
               .collective = all_collectives()[index % all_collectives().size()],
               .datatype = all_datatypes()[(step / kSizes) % all_datatypes().size()],
               .op = ReduceOp::sum,
               .placement = Placement::world,
               .nranks = 2,
               .mode = index / static_cast<int>(all_collectives().size()) % 2 ? Mode::latency
                                                                             : Mode::bandwidth,
               .in_place = false,
               .size_bytes = std::size_t{8} << (step % kSizes),
               .count = std::size_t{2} << (step % kSizes),
               .algorithm = "ring",
               .protocol = "simple"};
  const std::size_t samples = std::uniform_int_distribution<std::size_t>(5, 3000)(random);
  std::uniform_real_distribution<double> seconds(1e-6, 1e-3);
  point.samples.nranks = 2;
  point.samples.world_ranks = {0, 1};
  for (std::size_t value = 0; value < 2 * samples; ++value)
    point.samples.per_rank_seconds.push_back(as_recorded(seconds(random)));
  if (point.key.mode == Mode::latency) point.samples.start_lateness_seconds = point.samples.per_rank_seconds;
  point.summary = {.samples = samples, .median = 1e-5};
  point.rank_median_seconds = {1e-5, 2e-5};
  return point;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: append_until_killed FILE SEED\n");
    return 2;
  }
  ResultWriter writer(argv[1], true);
  Provenance provenance;
  provenance.text = {{"command_line", "append_until_killed"}, {"start_utc", "2026-12-02T00:00:00Z"}};
  provenance.integers = {{"nranks", 2}};
  provenance.hosts = {"node-a"};
  writer.write_provenance(provenance);
  std::vector<RankTopology> ranks(2);
  for (int rank = 0; rank < 2; ++rank) {
    ranks[rank].rank = ranks[rank].local_rank = rank;
    ranks[rank].host = "node-a";
  }
  writer.write_topology(ranks);
  std::mt19937 random(std::stoul(argv[2]));
  for (int index = 0;; ++index) {
    writer.append_point(next_point(index, random));
    std::printf("%d\n", index);
    std::fflush(stdout);
  }
}
