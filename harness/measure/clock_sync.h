#pragma once
// Keeps this rank's model of rank 0's clock (harness/measure/clock_model.h) over one
// communicator. Ranks that read one clock (one kernel: a host, or virtual nodes on it) need one
// measurement between them: the lowest rank of each such clock domain, its leader, plays
// ping-pong with rank 0 and hands its fitpoint to the others, so rank 0 plays once per host, not
// once per rank. Every rank refits its model, and rank 0 learns how far the previous models had
// drifted (the residual error). Ranks that read rank 0's own clock play no ping-pong: their
// offset is exactly zero, where a ping-pong's would be off by up to half a round trip, and a
// start that far off is a latency that far off.
#include <vector>

#include "backends/communicator.h"
#include "harness/measure/clock_model.h"

namespace collbench {

// What rank 0 learns from one synchronisation (zeros elsewhere).
struct SyncOutcome {
  // The largest |measured offset - previous model| over ranks: how wrong the clocks were just
  // before; NaN on the first synchronisation.
  double residual_s = 0;
  // The largest of the ranks' shortest round trips: the new models are good to about half of it.
  double round_trip_s = 0;
};

class ClockSync {
 public:
  static constexpr int kPingPongs = 20;
  // A model older than this is refreshed before the next sample: with the drift fitted, what
  // is left is well under a microsecond per second on NTP-disciplined hosts, and every point's
  // residual is measured and stored, so a worse fabric shows in the record.
  static constexpr double kMaxModelAgeSeconds = 1.0;

  explicit ClockSync(Communicator& comm) : comm_(comm) {}

  // Collective over the communicator.
  SyncOutcome synchronise();

  double to_root(double local_s) const { return model_.to_root(local_s); }
  double to_local(double root_s) const { return model_.to_local(root_s); }
  double now_on_root_clock() const;
  // Seconds since the last synchronise (infinite before the first).
  double age_s() const;

 private:
  ClockFitpoint play_with_root();
  void serve(int peer);
  // This rank's fitpoint of this synchronisation: measured by its clock domain's leader.
  ClockFitpoint measure();
  // Once: every rank's clock domain leader, the lowest rank that reads the same clock.
  void learn_clock_domains();

  Communicator& comm_;
  std::vector<int> leader_of_;
  ClockModel model_;
  double synced_at_ = -1;
};

}  // namespace collbench
