#include "harness/measure/clock_sync.h"

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "harness/measure/host_clock.h"

namespace collbench {

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
    comm_.send_value(exchange.sent_s, kCoordinatorRank);
    exchange.root_s = comm_.receive_value<double>(kCoordinatorRank);
    exchange.received_s = steady_seconds();
  }
  return best_fitpoint(exchanges);
}

void ClockSync::learn_clock_domains() {
  constexpr std::size_t kDomainLength = 64;
  std::array<char, kDomainLength> mine{};
  const std::string domain = steady_clock_domain();
  // A rank that cannot name its clock is a domain of its own.
  if (!domain.empty() && domain.size() < kDomainLength) domain.copy(mine.data(), kDomainLength);
  const auto domains = comm_.gather_values(mine, kCoordinatorRank);
  leader_of_.resize(comm_.size());
  std::map<std::array<char, kDomainLength>, int> first_rank;
  for (int rank = 0; rank < static_cast<int>(domains.size()); ++rank)
    leader_of_[rank] = domains[rank][0] == '\0'
                           ? rank
                           : first_rank.try_emplace(domains[rank], rank).first->second;
  comm_.broadcast(std::as_writable_bytes(std::span(leader_of_)), kCoordinatorRank);
}

ClockFitpoint ClockSync::measure() {
  const int me = comm_.rank();
  const int leader = leader_of_[me];
  if (leader == kCoordinatorRank) return {steady_seconds(), 0, 0};
  if (leader != me) return comm_.receive_value<ClockFitpoint>(leader);
  const ClockFitpoint fitpoint = play_with_root();
  for (int rank = me + 1; rank < comm_.size(); ++rank)
    if (leader_of_[rank] == me) comm_.send_value(fitpoint, rank);
  return fitpoint;
}

SyncOutcome ClockSync::synchronise() {
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  if (leader_of_.empty()) learn_clock_domains();
  // Rank 0 serves the leaders in turn; a leader's followers wait for its fitpoint meanwhile.
  std::array<double, 2> mine{kNone, 0};  // |residual|, round trip
  if (comm_.rank() == kCoordinatorRank) {
    for (int peer = 1; peer < comm_.size(); ++peer)
      if (leader_of_[peer] == peer) serve(peer);
  } else {
    const ClockFitpoint fitpoint = measure();
    // A rank on rank 0's clock is exact from the start; the others have a residual once they
    // have an earlier model to compare with.
    if (leader_of_[comm_.rank()] == kCoordinatorRank || !model_.empty())
      mine[0] = std::abs(fitpoint.offset_s - model_.offset_at(fitpoint.local_s));
    mine[1] = fitpoint.round_trip_s;
    model_.add(fitpoint);
  }
  synced_at_ = steady_seconds();
  comm_.max_over_ranks(mine);
  SyncOutcome outcome;
  if (comm_.rank() != kCoordinatorRank) return outcome;
  outcome.round_trip_s = mine[1];
  // A lone rank reads its own clock; NaN when no rank had an earlier model to compare with.
  if (comm_.size() == 1)
    outcome.residual_s = 0;
  else if (mine[0] == kNone)
    outcome.residual_s = std::numeric_limits<double>::quiet_NaN();
  else
    outcome.residual_s = mine[0];
  return outcome;
}

double ClockSync::now_on_root_clock() const { return to_root(steady_seconds()); }

double ClockSync::age_s() const {
  return synced_at_ < 0 ? std::numeric_limits<double>::infinity() : steady_seconds() - synced_at_;
}

}  // namespace collbench
