#pragma once
// `collbench links`: UCX point-to-point latency and bandwidth between every pair of hosts (or
// ranks), slow links and hosts named. One process per rank (mpirun, srun).
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli/output_options.h"
#include "harness/cli/sampling_options.h"
#include "harness/cli/size_options.h"

namespace collbench {

struct LinksOptions {
  SizeOptions sizes{.min_bytes = "8", .max_bytes = "2M", .step_factor = 8};
  std::string between = "hosts";
  int pairs_at_once = 0;
  std::string modes = "latency,bandwidth,bidirectional";
  SamplingOptions sampling{.warmup = 2};
  double shortfall = 0.2;
  std::string memory = "host";
  OutputOptions output;
  bool quiet = false;
};

void add_links_options(CLI::App& command, LinksOptions& options);

// Returns the exit code: 0, 2 for bad input, 3 for a fault (a peer that died or hung).
int links_command(const LinksOptions& options, const std::vector<std::string>& argv);

}  // namespace collbench
