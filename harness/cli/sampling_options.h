#pragma once
// The options every measuring command samples by (`run`, `links`): nccl-tests' -n, -w and -T, the
// rounds and the stopping rule, declared and resolved once, so that both mean the same by them
// and refuse the same values.
#include <optional>

#include <CLI/CLI.hpp>

#include "harness/measure/sampling.h"

namespace collbench {

struct SamplingOptions {
  std::optional<long long> iters = std::nullopt;
  int warmup = 5;  // -w/--warmup_iters
  std::optional<int> rounds = std::nullopt;  // default: kDefaultRounds, or 1 with -n
  long long min_samples = 10;
  double min_time_s = 0;
  double target_ci = 0.01;
  double max_time_s = 1.0;
  std::optional<double> timeout_s = std::nullopt;  // -T; the watchdog's default when not given
};

// What a warm-up and a round are differ by command; the rest is said the same everywhere.
struct SamplingHelp {
  const char* warmup;
  const char* rounds;
};

void add_sampling_options(CLI::App& command, SamplingOptions& options, const SamplingHelp& help);

// Throws UsageError naming the option whose value is out of range.
Sampling resolve_sampling(const SamplingOptions& options);

}  // namespace collbench
