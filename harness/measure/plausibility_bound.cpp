#include "harness/measure/plausibility_bound.h"

#include <algorithm>
#include <array>
#include <vector>

#include "harness/measure/fault_guard.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

// From sizes that fit the caches, where copies run fastest, up to the largest buffer, by 4.
constexpr std::size_t kSmallestCopyBytes = std::size_t{4} << 10;
constexpr std::size_t kBytesPerSample = std::size_t{4} << 20;  // each sample copies this, or one
constexpr int kMaxCopiesPerSample = 1024;
constexpr int kCopySamples = 5;
constexpr int kEmptyCallsPerSample = 100;
constexpr int kEmptyCallSamples = 15;

// Each size's fastest copy on this rank.
std::vector<CopyRate> fastest_copies(Communicator& world, Buffer& to, const Buffer& from,
                                     Timer& timer) {
  const std::size_t largest = std::min(to.bytes(), from.bytes());
  std::vector<CopyRate> rates;
  for (std::size_t bytes = std::min(kSmallestCopyBytes, largest); bytes > 0;
       bytes = bytes == largest ? 0 : std::min(bytes * 4, largest)) {
    const int copies =
        static_cast<int>(std::clamp<std::size_t>(kBytesPerSample / bytes, 1, kMaxCopiesPerSample));
    CopyRate& rate = rates.emplace_back(CopyRate{bytes, 0});
    for (int sample = 0; sample < kCopySamples; ++sample) {
      timer.start();
      for (int i = 0; i < copies; ++i) world.copy(to, from, bytes);
      const double seconds = timer.stop_seconds();
      if (seconds > 0)
        rate.gbps = std::max(rate.gbps, static_cast<double>(bytes) * copies / seconds / 1e9);
    }
  }
  return rates;
}

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

PlausibilityBound measure_plausibility_bound(Communicator& world, RunBuffers& buffers) {
  CommunicationWait wait("measuring what this host can copy, and an empty call");
  const auto timer = world.make_timer();
  PlausibilityBound bound;
  world.barrier();
  bound.copy = fastest_copies(world, *buffers.recv, *buffers.send, *timer);
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
