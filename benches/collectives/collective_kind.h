#pragma once
#include <optional>
#include <span>
#include <string_view>

namespace collbench {

// allreduce_hier: the allreduce composed from sub-communicators (allreduce_hier.cpp).
enum class CollectiveKind { allreduce, allgather, reduce_scatter, allreduce_hier };

std::span<const CollectiveKind> all_collectives();
std::string_view name(CollectiveKind kind);
std::optional<CollectiveKind> parse_collective(std::string_view text);

}  // namespace collbench
