#pragma once
// The message sizes a measuring command sweeps (`run`, `links`): nccl-tests' -b, -e, -f and, where
// the command steps additively, -i; declared and resolved once, so that both read sizes alike and
// refuse the same values.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/plan/sizes.h"

namespace collbench {

// Each command's defaults are its own (a collective sweep reaches further than a link matrix).
struct SizeOptions {
  std::string min_bytes;
  std::string max_bytes;
  double step_factor = 2;
  std::optional<std::string> step_bytes = std::nullopt;
};

struct SizeSweep {
  SweepSpec spec;
  std::vector<std::size_t> sizes;
};

enum class SizeSteps { multiplicative, either };  // either: -i offered beside -f

void add_size_options(CLI::App& command, SizeOptions& options, SizeSteps steps);

// Throws UsageError naming the option whose value is wrong.
SizeSweep resolve_sizes(const SizeOptions& options);

}  // namespace collbench
