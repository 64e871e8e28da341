#pragma once
// Keeps this rank's model of rank 0's clock (harness/measure/clock_model.h) over one
// communicator: rank 0 plays ping-pong with every other rank in turn, each rank refits its
// model, and rank 0 learns how far the previous models had drifted (the residual error).
// A rank that reads the same clock as rank 0 (the same kernel: one host, or virtual nodes on
// it) plays no ping-pong: its offset is exactly zero, where a ping-pong's would be off by up to
// half a round trip, and a start that far off is a latency that far off.
#include <vector>

#include "benches/backends/communicator.h"
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
  // Once: which ranks read rank 0's clock (on rank 0, per rank; elsewhere, this rank's).
  void learn_shared_clocks();

  Communicator& comm_;
  std::vector<char> shares_root_clock_;
  ClockModel model_;
  double synced_at_ = -1;
};

}  // namespace collbench
