#pragma once
#include <optional>
#include <span>
#include <string_view>

namespace collbench {

// Every collective collbench runs, in one list: the enum below and the registry of descriptors
// (collective.cpp) are both made from it, so none can be in one and missing from the other.
// Each has its descriptor, descriptor<CollectiveKind::name>(), in a file of its name.
// allreduce_hier: the allreduce composed from sub-communicators (allreduce_hier.cpp).
#define COLLBENCH_COLLECTIVES(X) \
  X(allreduce)                   \
  X(allgather)                   \
  X(reduce_scatter)              \
  X(alltoall)                    \
  X(broadcast)                   \
  X(reduce)                      \
  X(gather)                      \
  X(scatter)                     \
  X(sendrecv)                    \
  X(allreduce_hier)

enum class CollectiveKind {
#define COLLBENCH_ENUMERATOR(kind) kind,
  COLLBENCH_COLLECTIVES(COLLBENCH_ENUMERATOR)
#undef COLLBENCH_ENUMERATOR
};

std::span<const CollectiveKind> all_collectives();
std::string_view name(CollectiveKind kind);
std::optional<CollectiveKind> parse_collective(std::string_view text);

}  // namespace collbench
