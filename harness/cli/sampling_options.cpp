#include "harness/cli/sampling_options.h"

#include <fmt/format.h>

#include "harness/cli/option_values.h"

namespace collbench {
namespace {
constexpr int kMostRounds = 100;
}  // namespace

void add_sampling_options(CLI::App& command, SamplingOptions& o, const SamplingHelp& help) {
  command.add_option("-n,--iters", o.iters, "samples per point; turns adaptive stopping off");
  command.add_option("-w,--warmup_iters", o.warmup, help.warmup)->capture_default_str();
  command.add_option("--rounds", o.rounds,
                     fmt::format("{} (default {}; 1 with -n; at most {})", help.rounds,
                                 kDefaultRounds, kMostRounds));
  command
      .add_option("--min-samples", o.min_samples,
                  "samples per point, shared by its rounds, before stopping may be decided")
      ->capture_default_str();
  command.add_option("--min-time", o.min_time_s, "seconds of sampling before stopping")
      ->capture_default_str();
  command
      .add_option("--target-ci", o.target_ci,
                  "stop once the median's 95% interval is within this fraction of it")
      ->capture_default_str();
  command.add_option("--max-time", o.max_time_s, "seconds of sampling at most per point and mode")
      ->capture_default_str();
  command.add_option("-T,--timeout", o.timeout_s,
                     "seconds a rank may wait on its peers before the job is ended (0: off; "
                     "default 300, and never under 100 times the slowest sample)");
}

Sampling resolve_sampling(const SamplingOptions& o) {
  require(!o.iters || *o.iters >= 1, "-n/--iters must be at least 1");
  require(o.warmup >= 0,
          fmt::format("-w/--warmup_iters must not be negative, got {}", o.warmup));
  require(!o.rounds || (*o.rounds >= 1 && *o.rounds <= kMostRounds),
          fmt::format("--rounds must be between 1 and {}", kMostRounds));
  require(o.min_samples >= 1, "--min-samples must be at least 1");
  require(o.min_time_s >= 0, "--min-time must not be negative");
  require(o.target_ci > 0 && o.target_ci < 1, "--target-ci must be a fraction between 0 and 1");
  require(o.max_time_s > 0, "--max-time must be positive");
  require(!o.timeout_s || *o.timeout_s >= 0, "-T/--timeout must not be negative");
  Sampling sampling;
  sampling.warmup = o.warmup;
  sampling.stopping.min_samples = static_cast<std::size_t>(o.min_samples);
  sampling.stopping.min_time_s = o.min_time_s;
  sampling.stopping.target_ci = o.target_ci;
  sampling.stopping.max_time_s = o.max_time_s;
  if (o.iters) sampling.stopping.fixed_samples = static_cast<std::size_t>(*o.iters);
  // -n is nccl-tests' exact count: one round unless rounds are asked for (then n in each).
  sampling.rounds = o.rounds.value_or(o.iters ? 1 : kDefaultRounds);
  if (o.timeout_s) sampling.watchdog = Watchdog{*o.timeout_s, false};
  return sampling;
}

}  // namespace collbench
