#include "backends/overlap_load.h"

#include <array>
#include <cmath>
#include <limits>

namespace collbench {
namespace {

constexpr std::array kKinds{LoadKind::memory, LoadKind::gemm};

}  // namespace

std::span<const LoadKind> all_load_kinds() { return kKinds; }

std::string_view name(LoadKind kind) {
  switch (kind) {
    case LoadKind::memory: return "memory";
    case LoadKind::gemm: return "gemm";
  }
  return "?";
}

std::optional<LoadKind> parse_load_kind(std::string_view text) {
  for (LoadKind kind : kKinds)
    if (name(kind) == text) return kind;
  return std::nullopt;
}

int passes_for(double seconds, double one_pass_seconds) {
  if (!(one_pass_seconds > 0)) return 1;
  const double passes = std::round(seconds / one_pass_seconds);
  if (passes < 1) return 1;
  if (passes > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  return static_cast<int>(passes);
}

}  // namespace collbench
