#pragma once
#include <optional>
#include <span>
#include <string_view>

namespace collbench {

enum class CollectiveKind { allreduce, allgather, reduce_scatter };

std::span<const CollectiveKind> all_collectives();
std::string_view name(CollectiveKind kind);
std::optional<CollectiveKind> parse_collective(std::string_view text);

}  // namespace collbench
