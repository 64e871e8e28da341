#include "placement.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace collbench {
namespace {

constexpr std::array kPlacements{Placement::world, Placement::intra, Placement::inter,
                                 Placement::packed, Placement::spread};
constexpr std::array kJobPlacements{Placement::world, Placement::intra, Placement::inter};

// World ranks per node, in node order, each node's ranks in local-rank order.
std::vector<std::vector<int>> ranks_by_node(std::span<const RankPlace> ranks) {
  std::map<int, std::map<int, int>> by_node;  // node → local rank → world rank
  for (int rank = 0; rank < static_cast<int>(ranks.size()); ++rank)
    by_node[ranks[rank].node][ranks[rank].local_rank] = rank;
  std::vector<std::vector<int>> nodes;
  for (const auto& [node, locals] : by_node) {
    nodes.emplace_back();
    for (const auto& [local, rank] : locals) nodes.back().push_back(rank);
  }
  return nodes;
}

GroupLayout skipped(Placement placement, std::string why) {
  GroupLayout layout;
  layout.placement = placement;
  layout.skipped = std::move(why);
  return layout;
}

GroupLayout with_groups(Placement placement, std::vector<std::vector<int>> groups) {
  GroupLayout layout;
  layout.placement = placement;
  for (auto& group : groups) std::sort(group.begin(), group.end());
  layout.group_size = groups.empty() ? 0 : static_cast<int>(groups.front().size());
  layout.groups = std::move(groups);
  return layout;
}

}  // namespace

std::string_view name(Placement placement) {
  switch (placement) {
    case Placement::world: return "world";
    case Placement::intra: return "intra";
    case Placement::inter: return "inter";
    case Placement::packed: return "packed";
    case Placement::spread: return "spread";
  }
  return "?";
}

std::optional<Placement> parse_placement(std::string_view text) {
  for (Placement placement : kPlacements)
    if (name(placement) == text) return placement;
  return std::nullopt;
}

std::span<const Placement> all_placements() { return kPlacements; }

std::span<const Placement> job_placements() { return kJobPlacements; }

bool is_subset(Placement placement) {
  return placement == Placement::packed || placement == Placement::spread;
}

int GroupLayout::group_of(int world_rank) const {
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (std::binary_search(groups[g].begin(), groups[g].end(), world_rank)) return static_cast<int>(g);
  return -1;
}

GroupLayout world_layout(std::span<const RankPlace> ranks) {
  std::vector<int> all(ranks.size());
  for (std::size_t rank = 0; rank < all.size(); ++rank) all[rank] = static_cast<int>(rank);
  return with_groups(Placement::world, {all});
}

GroupLayout intra_layout(std::span<const RankPlace> ranks) {
  const auto nodes = ranks_by_node(ranks);
  std::size_t size = 0;
  for (const auto& node : nodes)
    if (node.size() >= 2 && (size == 0 || node.size() < size)) size = node.size();
  if (size == 0)
    return skipped(Placement::intra, "every node has one rank; intra-node needs two on a node");
  std::vector<std::vector<int>> groups;
  for (const auto& node : nodes)
    if (node.size() >= 2) groups.emplace_back(node.begin(), node.begin() + static_cast<long>(size));
  return with_groups(Placement::intra, std::move(groups));
}

GroupLayout inter_layout(std::span<const RankPlace> ranks) {
  const auto nodes = ranks_by_node(ranks);
  if (nodes.size() < 2)
    return skipped(Placement::inter, "the job runs on one node; inter-node needs two");
  std::size_t rails = nodes.front().size();
  for (const auto& node : nodes) rails = std::min(rails, node.size());
  std::vector<std::vector<int>> groups(rails);
  for (std::size_t rail = 0; rail < rails; ++rail)
    for (const auto& node : nodes) groups[rail].push_back(node[rail]);
  return with_groups(Placement::inter, std::move(groups));
}

GroupLayout job_layout(std::span<const RankPlace> ranks, Placement placement) {
  switch (placement) {
    case Placement::world: return world_layout(ranks);
    case Placement::intra: return intra_layout(ranks);
    case Placement::inter: return inter_layout(ranks);
    case Placement::packed:
    case Placement::spread: break;
  }
  throw std::invalid_argument(fmt::format("placement {} needs a size", name(placement)));
}

GroupLayout subset_layout(std::span<const RankPlace> ranks, int size, Placement placement) {
  if (!is_subset(placement))
    throw std::invalid_argument(fmt::format("placement {} is not a subset", name(placement)));
  if (size > static_cast<int>(ranks.size()))
    return skipped(placement, fmt::format("{} ranks asked, the job has {}", size, ranks.size()));
  const auto nodes = ranks_by_node(ranks);
  std::vector<int> order;
  if (placement == Placement::packed) {
    for (const auto& node : nodes) order.insert(order.end(), node.begin(), node.end());
  } else {
    for (std::size_t local = 0; order.size() < ranks.size(); ++local)
      for (const auto& node : nodes)
        if (local < node.size()) order.push_back(node[local]);
  }
  order.resize(static_cast<std::size_t>(size));
  return with_groups(placement, {order});
}

std::vector<int> powers_of_two_up_to(int world_size) {
  std::vector<int> sizes;
  for (int size = 2; size <= world_size; size *= 2) sizes.push_back(size);
  return sizes;
}

}  // namespace collbench
