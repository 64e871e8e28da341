#include "harness/links/link_matrix.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/measure/fault_guard.h"
#include "harness/plan/pair_rounds.h"

namespace collbench {
namespace {

// Every rank's address, on every rank: gathered at rank 0 at the longest one's length, behind
// an 8-byte length, and broadcast.
std::vector<std::vector<std::byte>> exchange_addresses(Communicator& world,
                                                       const PointToPoint& links) {
  CommunicationWait wait("exchanging the ranks' UCX addresses");
  const std::vector<std::byte> mine = links.address();
  double longest[] = {static_cast<double>(mine.size())};
  world.max_over_ranks(longest);
  const std::size_t slot = sizeof(std::uint64_t) + static_cast<std::size_t>(longest[0]);
  std::vector<std::byte> padded(slot);
  const std::uint64_t length = mine.size();
  std::memcpy(padded.data(), &length, sizeof length);
  std::copy(mine.begin(), mine.end(), padded.begin() + sizeof length);
  std::vector<std::byte> all(slot * world.size());
  world.gather(padded, all, kCoordinatorRank);
  world.broadcast(all, kCoordinatorRank);
  std::vector<std::vector<std::byte>> addresses;
  for (int rank = 0; rank < world.size(); ++rank) {
    const std::byte* start = all.data() + slot * rank;
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, start, sizeof bytes);
    if (bytes > slot - sizeof bytes) throw ControlCorruption("a UCX address longer than its slot");
    addresses.emplace_back(start + sizeof bytes, start + sizeof bytes + bytes);
  }
  return addresses;
}

nlohmann::json to_json(const LinkPoint& point, const std::string& transport) {
  return {{"source", point.source_rank},
          {"destination", point.destination_rank},
          {"transport", transport},
          {"mode", name(point.mode)},
          {"size", point.size_bytes},
          {"window", point.messages_per_sample},
          {"stop", name(point.stop_reason)},
          {"samples", point.samples_seconds}};
}

LinkPoint from_json(const nlohmann::json& json, const JobTopology& topology) {
  LinkPoint point;
  point.source_rank = json.at("source").get<int>();
  point.destination_rank = json.at("destination").get<int>();
  const int ranks = static_cast<int>(topology.ranks.size());
  if (point.source_rank < 0 || point.source_rank >= ranks || point.destination_rank < 0 ||
      point.destination_rank >= ranks)
    throw ControlCorruption("a link point names a rank outside the job");
  const RankTopology& source = topology.ranks[point.source_rank];
  const RankTopology& destination = topology.ranks[point.destination_rank];
  point.source_host = source.host;
  point.destination_host = destination.host;
  point.kind = source.node_index == destination.node_index ? LinkKind::intra : LinkKind::inter;
  point.transport = json.at("transport").get<std::string>();
  const auto mode = parse_link_mode(json.at("mode").get<std::string>());
  const auto stop = parse_stop_reason(json.at("stop").get<std::string>());
  if (!mode || !stop) throw ControlCorruption("a link point with an unknown mode or stop reason");
  point.mode = *mode;
  point.stop_reason = *stop;
  point.size_bytes = json.at("size").get<std::size_t>();
  point.messages_per_sample = json.at("window").get<int>();
  point.samples_seconds = json.at("samples").get<std::vector<double>>();
  point.summary = summarize(point.samples_seconds);
  return point;
}

// The round's points, at rank 0: each rank's own, as MessagePack, sent to rank 0 after their
// lengths are gathered.
std::vector<LinkPoint> collect_round(Communicator& world, const std::vector<std::uint8_t>& mine,
                                     const JobTopology& topology) {
  CommunicationWait wait("collecting a round of links at rank 0");
  const auto lengths = world.gather_values<std::uint64_t>(mine.size(), kCoordinatorRank);
  std::vector<LinkPoint> points;
  if (world.rank() != kCoordinatorRank) {
    if (!mine.empty()) world.send(std::as_bytes(std::span(mine)), kCoordinatorRank);
    return points;
  }
  for (int rank = 0; rank < world.size(); ++rank) {
    if (lengths[rank] == 0) continue;
    std::vector<std::uint8_t> message(lengths[rank]);
    if (rank == kCoordinatorRank) message = mine;
    else world.receive(std::as_writable_bytes(std::span(message)), rank);
    for (const auto& json : nlohmann::json::from_msgpack(message))
      points.push_back(from_json(json, topology));
  }
  // Link by link, and in each mode by mode, size and direction.
  const auto order = [](const LinkPoint& point) {
    return std::tuple(std::min(point.source_rank, point.destination_rank),
                      std::max(point.source_rank, point.destination_rank), point.mode,
                      point.size_bytes, point.source_rank);
  };
  std::stable_sort(points.begin(), points.end(),
                   [&](const LinkPoint& a, const LinkPoint& b) { return order(a) < order(b); });
  return points;
}

// Adds a pass's points to the earlier passes' (the same points, in the same order): samples
// appended, the worst stop reason kept, statistics of them all.
void pool(std::vector<LinkPoint>& points, std::vector<LinkPoint> pass) {
  if (points.empty()) {
    points = std::move(pass);
  } else {
    if (pass.size() != points.size()) throw ControlCorruption("a pass measured other link points");
    for (std::size_t i = 0; i < points.size(); ++i) {
      LinkPoint& point = points[i];
      const std::vector<double>& more = pass[i].samples_seconds;
      point.samples_seconds.insert(point.samples_seconds.end(), more.begin(), more.end());
      ++point.rounds;
      if (pass[i].stop_reason != StopReason::converged) point.stop_reason = pass[i].stop_reason;
    }
  }
  for (LinkPoint& point : points) point.summary = summarize(point.samples_seconds);
}

// The rounds of pairs, each cut into groups of at most `at_once` pairs (0: whole).
std::vector<std::vector<Pair>> pair_groups(int participants, int at_once) {
  std::vector<std::vector<Pair>> groups;
  for (const std::vector<Pair>& round : pair_rounds(participants)) {
    const std::size_t step = at_once > 0 ? static_cast<std::size_t>(at_once) : round.size();
    for (std::size_t start = 0; start < round.size(); start += step)
      groups.emplace_back(round.begin() + start,
                          round.begin() + std::min(round.size(), start + step));
  }
  return groups;
}

}  // namespace

std::vector<int> link_participants(const JobTopology& topology, LinkEnds ends) {
  std::vector<int> participants;
  std::vector<bool> host_seen(topology.nodes, false);
  for (const RankTopology& rank : topology.ranks) {
    if (ends == LinkEnds::hosts) {
      if (host_seen.at(rank.node_index)) continue;
      host_seen[rank.node_index] = true;
    }
    participants.push_back(rank.rank);
  }
  return participants;
}

void measure_link_matrix(Communicator& world, PointToPoint& links, const JobTopology& topology,
                         const LinkSchedule& schedule, const LinkPlan& plan,
                         const LinkRoundDone& round_done) {
  const std::vector<std::vector<std::byte>> addresses = exchange_addresses(world, links);
  const std::vector<int> participants = link_participants(topology, schedule.ends);
  const int self = world.rank();
  std::vector<bool> connected(world.size(), false);
  // This rank's points of its pairs in a group, as MessagePack for rank 0.
  const auto measure_group = [&](const std::vector<Pair>& group, const LinkPlan& pass_plan) {
    nlohmann::json mine = nlohmann::json::array();
    for (const Pair& pair : group) {
      const int first = participants[pair.first];
      const int second = participants[pair.second];
      if (self != first && self != second) continue;
      const int partner = self == first ? second : first;
      if (!connected[partner]) {
        links.connect(partner, addresses[partner]);
        connected[partner] = true;
      }
      set_fault_context(fmt::format("the link between ranks {} and {}", first, second));
      const std::string transport = links.transports(partner);
      for (const LinkPoint& point : measure_link(links, self, partner, self == first, pass_plan))
        mine.push_back(to_json(point, transport));
    }
    return mine.empty() ? std::vector<std::uint8_t>() : nlohmann::json::to_msgpack(mine);
  };

  // Passes over the whole matrix (the rounds), each point's samples pooled over them, each pass
  // with its share of the point's budget: a link is then measured at several moments apart, as
  // run's points are in rounds, and a state the hosts pass through (seen on the 2-core virtual
  // cluster: links measured seconds apart differing 1.2 to 2.5 times) weighs on each link alike
  // instead of on the links it happened to.
  LinkPlan pass_plan = plan;
  pass_plan.sampling.stopping = round_share(plan.sampling.stopping, plan.sampling.rounds);
  const auto groups = pair_groups(static_cast<int>(participants.size()), schedule.pairs_at_once);
  std::vector<std::vector<LinkPoint>> pooled(groups.size());  // rank 0's, by group
  for (int pass = 0; pass < plan.sampling.rounds; ++pass)
    for (std::size_t index = 0; index < groups.size(); ++index) {
      const std::vector<std::uint8_t> mine = measure_group(groups[index], pass_plan);
      {
        CommunicationWait wait("waiting for the round's other pairs");
        world.idle_barrier();
      }
      std::vector<LinkPoint> points = collect_round(world, mine, topology);
      if (self != kCoordinatorRank) continue;
      pool(pooled[index], std::move(points));
      if (pass + 1 == plan.sampling.rounds) round_done(std::move(pooled[index]));
    }
}

}  // namespace collbench
