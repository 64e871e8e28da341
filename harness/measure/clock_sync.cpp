#include "harness/measure/clock_sync.h"

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "harness/measure/host_clock.h"

namespace collbench {
namespace {

constexpr int kRoot = 0;

template <typename T>
std::span<const std::byte> bytes_in(const T& value) {
  return std::as_bytes(std::span(&value, 1));
}

template <typename T>
std::span<std::byte> bytes_out(T& value) {
  return std::as_writable_bytes(std::span(&value, 1));
}

}  // namespace

void ClockSync::serve(int peer) {
  for (int i = 0; i < kPingPongs; ++i) {
    double ping = 0;
    comm_.receive(bytes_out(ping), peer);
    const double now = steady_seconds();
    comm_.send(bytes_in(now), peer);
  }
}

ClockFitpoint ClockSync::play_with_root() {
  std::array<PingPong, kPingPongs> exchanges;
  for (PingPong& exchange : exchanges) {
    exchange.sent_s = steady_seconds();
    comm_.send(bytes_in(exchange.sent_s), kRoot);
    comm_.receive(bytes_out(exchange.root_s), kRoot);
    exchange.received_s = steady_seconds();
  }
  return best_fitpoint(exchanges);
}

SyncOutcome ClockSync::synchronise() {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::array<double, 2> mine{kNone, 0};  // residual, round trip
  for (int peer = 1; peer < comm_.size(); ++peer) {
    if (comm_.rank() == kRoot) serve(peer);
    if (comm_.rank() != peer) continue;
    const ClockFitpoint fitpoint = play_with_root();
    if (!model_.empty()) mine[0] = fitpoint.offset_s - model_.offset_at(fitpoint.local_s);
    mine[1] = fitpoint.round_trip_s;
    model_.add(fitpoint);
  }
  synced_at_ = steady_seconds();
  std::vector<std::array<double, 2>> all(comm_.rank() == kRoot ? comm_.size() : 0);
  comm_.gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)), kRoot);
  SyncOutcome outcome;
  if (comm_.rank() != kRoot) return outcome;
  outcome.residual_s = comm_.size() > 1 ? kNone : 0;
  for (const auto& [residual, round_trip] : all) {
    if (!std::isnan(residual))
      outcome.residual_s = std::isnan(outcome.residual_s)
                               ? std::abs(residual)
                               : std::max(outcome.residual_s, std::abs(residual));
    outcome.round_trip_s = std::max(outcome.round_trip_s, round_trip);
  }
  return outcome;
}

double ClockSync::now_on_root_clock() const { return to_root(steady_seconds()); }

double ClockSync::age_s() const {
  return synced_at_ < 0 ? std::numeric_limits<double>::infinity() : steady_seconds() - synced_at_;
}

}  // namespace collbench
