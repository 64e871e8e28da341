#pragma once
// One rank's clock against rank 0's. Offsets come from minimum-round-trip ping-pongs (SKaMPI,
// Netgauge): the exchange least delayed bounds the offset tightest, to ± its round trip / 2.
// Drift comes from the history of such offsets, fitted as a line (ReproMPI's HCA) once the
// history spans long enough for the slope to stand above the offsets' noise; until then the
// model is the newest offset alone, which the sweep refreshes after every latency point.
#include <cstddef>
#include <deque>
#include <span>

namespace collbench {

// One ping-pong seen from the client: sent and received on its clock, rank 0's reading between.
struct PingPong {
  double sent_s = 0;
  double root_s = 0;
  double received_s = 0;
};

// An offset measurement: at local time `local_s`, rank 0's clock read local + offset.
struct ClockFitpoint {
  double local_s = 0;
  double offset_s = 0;
  double round_trip_s = 0;
};

// The fitpoint of the ping-pong with the shortest round trip. `exchanges` must not be empty.
ClockFitpoint best_fitpoint(std::span<const PingPong> exchanges);

class ClockModel {
 public:
  // The history a drift is fitted from, and how long it must span first.
  static constexpr std::size_t kHistory = 32;
  static constexpr double kMinDriftBaselineSeconds = 0.5;

  // Rank 0's time at this rank's `local_s`, and back.
  double to_root(double local_s) const { return local_s + offset_at(local_s); }
  double to_local(double root_s) const;
  double offset_at(double local_s) const;
  double drift() const { return drift_; }
  bool empty() const { return history_.empty(); }

  void add(const ClockFitpoint& fitpoint);

 private:
  std::deque<ClockFitpoint> history_;
  double drift_ = 0;
};

}  // namespace collbench
