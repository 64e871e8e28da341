#include "collective.h"

#include <algorithm>
#include <cmath>

namespace collbench {

namespace {

#define COLLBENCH_KIND(kind) CollectiveKind::kind,
constexpr CollectiveKind kCollectives[] = {COLLBENCH_COLLECTIVES(COLLBENCH_KIND)};
#undef COLLBENCH_KIND

// A collective without its descriptor fails to link.
#define COLLBENCH_DESCRIPTOR(kind) &descriptor<CollectiveKind::kind>,
constexpr const Collective& (*kDescriptors[])() = {COLLBENCH_COLLECTIVES(COLLBENCH_DESCRIPTOR)};
#undef COLLBENCH_DESCRIPTOR

// How many shares the buffer is cut into: p when a side or the count is one rank's share, or
// the collective cuts it inside; else 1.
std::size_t shares_of(const Collective& c, int nranks) {
  const bool split = c.send == Extent::share || c.recv == Extent::share ||
                     c.count == Extent::share || c.cut_into_shares;
  return split ? static_cast<std::size_t>(nranks) : 1;
}

std::size_t offset_of(Extent side, int rank, const Shape& shape) {
  return side == Extent::share ? static_cast<std::size_t>(rank) * shape.count : 0;
}

}  // namespace

double RankFamily::latency_factor(double ranks) const {
  return latency_per_peer * (ranks - 1) + latency_per_doubling * std::log2(ranks);
}

double RankFamily::bandwidth_factor(double ranks) const {
  return bandwidth_per_share * (ranks - 1) / ranks + bandwidth_whole +
         bandwidth_per_doubling * std::log2(ranks);
}

const Collective& describe(CollectiveKind kind) {
  return kDescriptors[static_cast<std::size_t>(kind)]();
}

const RankFamily* find_family(CollectiveKind kind, std::string_view name) {
  for (const RankFamily& family : describe(kind).families)
    if (family.name == name) return &family;
  return nullptr;
}

const RankFamily& reference_family(CollectiveKind kind) { return describe(kind).families.front(); }

std::vector<const RankFamily*> textbook_algorithms(CollectiveKind kind) {
  std::vector<const RankFamily*> out;
  for (const RankFamily& family : describe(kind).families) out.push_back(&family);
  for (const RankFamily& family : describe(kind).log_depth) out.push_back(&family);
  return out;
}

std::span<const CollectiveKind> all_collectives() { return kCollectives; }

std::string_view name(CollectiveKind kind) { return describe(kind).name; }

std::optional<CollectiveKind> parse_collective(std::string_view text) {
  for (auto kind : kCollectives) {
    const Collective& c = describe(kind);
    if (c.name == text || std::ranges::find(c.aliases, text) != c.aliases.end()) return kind;
  }
  return std::nullopt;
}

Shape shape_for(CollectiveKind kind, std::size_t requested_bytes, std::size_t element_bytes,
                int nranks) {
  const Collective& c = describe(kind);
  const std::size_t shares = shares_of(c, nranks);
  const std::size_t share = requested_bytes / (element_bytes * shares);
  const std::size_t whole = share * shares;
  return {.send_count = c.send == Extent::buffer ? whole : share,
          .recv_count = c.recv == Extent::buffer ? whole : share,
          .size_bytes = whole * element_bytes,
          .count = c.count == Extent::buffer ? whole : share};
}

std::size_t smallest_size(CollectiveKind kind, std::size_t element_bytes, int nranks) {
  return shares_of(describe(kind), nranks) * element_bytes;
}

bool has_rank_families(CollectiveKind kind) { return !describe(kind).families.empty(); }

double busbw_factor(CollectiveKind kind, int nranks) {
  return has_rank_families(kind) ? reference_family(kind).bandwidth_factor(nranks) : 1.0;
}

bool uses_reduce_op(CollectiveKind kind) { return describe(kind).outcome == Outcome::reduced; }

bool has_root(CollectiveKind kind) {
  const Collective& c = describe(kind);
  return c.result_ranks != ResultRanks::every_rank || c.input_ranks != InputRanks::every_rank;
}

int root_of(CollectiveKind kind, int root) { return has_root(kind) ? root : kNoRoot; }

bool holds_result(CollectiveKind kind, int rank, int root) {
  switch (describe(kind).result_ranks) {
    case ResultRanks::every_rank: return true;
    case ResultRanks::root: return rank == root;
    case ResultRanks::all_but_root: return rank != root;
  }
  return true;
}

bool holds_input(CollectiveKind kind, int rank, int root) {
  return describe(kind).input_ranks == InputRanks::every_rank || rank == root;
}

std::size_t in_place_send_offset(CollectiveKind kind, int rank, const Shape& shape) {
  return offset_of(describe(kind).send, rank, shape);
}

std::size_t in_place_recv_offset(CollectiveKind kind, int rank, const Shape& shape) {
  return offset_of(describe(kind).recv, rank, shape);
}

}  // namespace collbench
