#include "harness/measure/clock_sync.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "harness/measure/host_clock.h"

namespace collbench {
namespace {

constexpr int kRoot = 0;

}  // namespace

void ClockSync::serve(int peer) {
  for (int i = 0; i < kPingPongs; ++i) {
    comm_.receive_value<double>(peer);
    comm_.send_value(steady_seconds(), peer);
  }
}

ClockFitpoint ClockSync::play_with_root() {
  std::array<PingPong, kPingPongs> exchanges;
  for (PingPong& exchange : exchanges) {
    exchange.sent_s = steady_seconds();
    comm_.send_value(exchange.sent_s, kRoot);
    exchange.root_s = comm_.receive_value<double>(kRoot);
    exchange.received_s = steady_seconds();
  }
  return best_fitpoint(exchanges);
}

void ClockSync::learn_shared_clocks() {
  constexpr std::size_t kDomainLength = 64;
  std::array<char, kDomainLength> domain{};
  const std::string mine = steady_clock_domain();
  if (comm_.rank() == kRoot) mine.copy(domain.data(), kDomainLength - 1);
  comm_.broadcast_value(domain, kRoot);
  const char shares = !mine.empty() && mine.size() < kDomainLength && mine == domain.data();
  shares_root_clock_ = comm_.gather_values(shares, kRoot);
  if (comm_.rank() != kRoot) shares_root_clock_ = {shares};
}

SyncOutcome ClockSync::synchronise() {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  if (shares_root_clock_.empty()) learn_shared_clocks();
  const auto shares = [&](int rank) {
    return comm_.rank() == kRoot ? shares_root_clock_[rank] != 0 : shares_root_clock_[0] != 0;
  };
  std::array<double, 2> mine{kNone, 0};  // residual, round trip
  for (int peer = 1; peer < comm_.size(); ++peer) {
    if (comm_.rank() != kRoot && comm_.rank() != peer) continue;
    if (shares(peer)) {
      if (comm_.rank() == peer) {
        mine[0] = 0;
        model_.add({steady_seconds(), 0, 0});
      }
      continue;
    }
    if (comm_.rank() == kRoot) serve(peer);
    if (comm_.rank() != peer) continue;
    const ClockFitpoint fitpoint = play_with_root();
    if (!model_.empty()) mine[0] = fitpoint.offset_s - model_.offset_at(fitpoint.local_s);
    mine[1] = fitpoint.round_trip_s;
    model_.add(fitpoint);
  }
  synced_at_ = steady_seconds();
  const auto all = comm_.gather_values(mine, kRoot);
  SyncOutcome outcome;
  if (comm_.rank() != kRoot) return outcome;
  // fmax skips NaN, so ranks without an earlier model (and rank 0 itself) do not count.
  outcome.residual_s = comm_.size() > 1 ? kNone : 0;
  for (const auto& [residual, round_trip] : all) {
    outcome.residual_s = std::fmax(outcome.residual_s, std::abs(residual));
    outcome.round_trip_s = std::max(outcome.round_trip_s, round_trip);
  }
  return outcome;
}

double ClockSync::now_on_root_clock() const { return to_root(steady_seconds()); }

double ClockSync::age_s() const {
  return synced_at_ < 0 ? std::numeric_limits<double>::infinity() : steady_seconds() - synced_at_;
}

}  // namespace collbench
