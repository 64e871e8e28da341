#include "collective.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace collbench {

extern const Collective kAllreduce;
extern const Collective kAllgather;
extern const Collective kReduceScatter;
extern const Collective kAllreduceHier;

namespace {

constexpr std::array kCollectives{CollectiveKind::allreduce, CollectiveKind::allgather,
                                  CollectiveKind::reduce_scatter, CollectiveKind::allreduce_hier};

// How many shares the buffer is cut into: p when either side holds one rank's share or the
// collective cuts it inside, else 1.
std::size_t shares_of(const Collective& c, int nranks) {
  const bool split = c.send == Extent::share || c.recv == Extent::share || c.cut_into_shares;
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
  switch (kind) {
    case CollectiveKind::allreduce: return kAllreduce;
    case CollectiveKind::allgather: return kAllgather;
    case CollectiveKind::reduce_scatter: return kReduceScatter;
    case CollectiveKind::allreduce_hier: return kAllreduceHier;
  }
  return kAllreduce;
}

const RankFamily* find_family(CollectiveKind kind, std::string_view name) {
  for (const RankFamily& family : describe(kind).families)
    if (family.name == name) return &family;
  return nullptr;
}

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
  Shape shape;
  if (c.cut_into_shares) {  // every rank holds the whole buffer, its count the shares'
    shape.count = requested_bytes / (element_bytes * shares) * shares;
    shape.send_count = shape.recv_count = shape.count;
    shape.size_bytes = shape.count * element_bytes;
    return shape;
  }
  shape.count = requested_bytes / (element_bytes * shares);
  shape.send_count = c.send == Extent::buffer ? shape.count * shares : shape.count;
  shape.recv_count = c.recv == Extent::buffer ? shape.count * shares : shape.count;
  shape.size_bytes = shape.count * shares * element_bytes;
  return shape;
}

std::size_t smallest_size(CollectiveKind kind, std::size_t element_bytes, int nranks) {
  return shares_of(describe(kind), nranks) * element_bytes;
}

double busbw_factor(CollectiveKind kind, int nranks) {
  return describe(kind).families.front().bandwidth_factor(nranks);
}

bool uses_reduce_op(CollectiveKind kind) { return describe(kind).reduces; }

std::size_t in_place_send_offset(CollectiveKind kind, int rank, const Shape& shape) {
  return offset_of(describe(kind).send, rank, shape);
}

std::size_t in_place_recv_offset(CollectiveKind kind, int rank, const Shape& shape) {
  return offset_of(describe(kind).recv, rank, shape);
}

}  // namespace collbench
