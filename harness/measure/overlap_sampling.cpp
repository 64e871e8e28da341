// RowRunner's overlap phase (`run --overlap-load`): samples of the load alone, the collective
// alone and the two side by side, interleaved so that drift touches the three alike, each
// started at a barrier and each the slowest rank's.
#include <algorithm>
#include <array>

#include "harness/measure/fault_guard.h"
#include "harness/measure/host_clock.h"
#include "harness/measure/row_runner.h"

namespace collbench {
namespace {

// Per series: a median's 95% interval from 30 samples spans about the 10th to the 20th, and
// the phase costs 90 samples a point on top of the point's own.
constexpr int kSamplesPerSeries = 30;

enum class Beside { load_alone, collective_alone, both };

}  // namespace

OverlapMeasure RowRunner::sample_overlap(const CollectiveCall& call, double alone_s) {
  {
    CommunicationWait wait("learning the overlap load's length");
    all_.broadcast_value(alone_s, kCoordinatorRank);
  }
  const auto batch = prepare(call, 1);
  if (load_) {
    CommunicationWait wait("sizing the overlap load");
    load_->size_for(alone_s);
  }
  OverlapSamples samples;
  for (int i = 0; i < 3 * kSamplesPerSeries; ++i) {
    const auto beside = static_cast<Beside>(i % 3);
    const double iteration_start = steady_seconds();
    // The load's time, the collective's, and the later of the two.
    std::array<double, 3> mine;
    mine.fill(Communicator::kNoMaximum);
    {
      CommunicationWait wait("a timed operation beside the overlap load");
      all_.barrier();
      if (batch) {
        if (beside != Beside::collective_alone) load_->start();
        if (beside != Beside::load_alone) mine[1] = run_timed(*batch);
        if (beside != Beside::collective_alone) mine[0] = load_->finish_seconds();
        mine[2] = std::max(mine[0], mine[1]);
      }
    }
    mine = maxima_over_ranks(mine, "reducing sample times");
    note_sample_seconds(steady_seconds() - iteration_start);
    switch (beside) {
      case Beside::load_alone: samples.load_alone.push_back(mine[0]); break;
      case Beside::collective_alone: samples.collective_alone.push_back(mine[1]); break;
      case Beside::both:
        samples.load_beside.push_back(mine[0]);
        samples.collective_beside.push_back(mine[1]);
        samples.steps.push_back(mine[2]);
        break;
    }
  }
  return all_.rank() == kCoordinatorRank ? measure_overlap(samples) : OverlapMeasure{};
}

}  // namespace collbench
