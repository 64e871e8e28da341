#include "collective_kind.h"

#include <array>

namespace collbench {
namespace {
constexpr std::array kCollectives{CollectiveKind::allreduce, CollectiveKind::allgather,
                                  CollectiveKind::reduce_scatter};
}

std::span<const CollectiveKind> all_collectives() { return kCollectives; }

std::string_view name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::allreduce: return "allreduce";
    case CollectiveKind::allgather: return "allgather";
    case CollectiveKind::reduce_scatter: return "reduce_scatter";
  }
  return "?";
}

std::optional<CollectiveKind> parse_collective(std::string_view text) {
  for (auto kind : kCollectives)
    if (name(kind) == text) return kind;
  if (text == "reducescatter" || text == "reduce-scatter") return CollectiveKind::reduce_scatter;
  return std::nullopt;
}

}  // namespace collbench
