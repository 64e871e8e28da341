#include "harness/measure/plausibility_bound.h"

#include <algorithm>
#include <array>
#include <vector>

#include "harness/measure/fault_guard.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

constexpr int kEmptyCallsPerSample = 100;
constexpr int kEmptyCallSamples = 15;

// A collective of count 0 returns before it communicates: Open MPI 4.1's MPI_Allreduce at once
// (ompi/mpi/c/allreduce.c: "if (0 == count) return MPI_SUCCESS"), NCCL 2.28's once its arguments
// are checked (src/enqueue.cc, taskAppend: "Empty collectives can be discarded"). Each call
// alone, never a captured graph.
double empty_call_seconds(Communicator& world, RunBuffers& buffers, Timer& timer) {
  const CollectiveCall empty{CollectiveKind::allreduce, DataType::float32, ReduceOp::sum, Shape{}};
  std::vector<double> per_call;
  for (int sample = 0; sample < kEmptyCallSamples; ++sample) {
    timer.start();
    for (int i = 0; i < kEmptyCallsPerSample; ++i) world.launch(empty, *buffers.send, *buffers.recv);
    per_call.push_back(timer.stop_seconds() / kEmptyCallsPerSample);
  }
  return summarize(per_call).median;
}

}  // namespace

PlausibilityBound measure_plausibility_bound(Communicator& world, RunBuffers& buffers,
                                             std::span<const CopySamples> copies) {
  CommunicationWait wait("measuring an empty call");
  const auto timer = world.make_timer();
  PlausibilityBound bound;
  for (const CopySamples& size : copies)  // each size's fastest copy on this rank
    bound.copy.push_back({size.bytes, size.gbps.empty() ? 0 : std::ranges::max(size.gbps)});
  world.barrier();
  std::array<double, 1> fastest_empty{-empty_call_seconds(world, buffers, *timer)};
  world.max_over_ranks(fastest_empty);
  bound.empty_call_s = -fastest_empty[0];
  for (CopyRate& rate : bound.copy) {  // every rank has the same sizes: the run's buffers
    std::array<double, 1> fastest{rate.gbps};
    world.max_over_ranks(fastest);
    rate.gbps = fastest[0];
  }
  return bound;
}

}  // namespace collbench
