#pragma once
// `collbench trend FILES|DIR...`: a nightly history per point, with change points
// (harness/trend/), as a table or JSON, and as JUnit and Prometheus files.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli/verdict_outputs.h"

namespace collbench {

struct TrendCommandOptions {
  std::vector<std::string> files;  // result files and folders of them, oldest first
  std::string threshold = "5%";    // the smallest change of level that counts
  double alpha = 0.05;
  int recent = 3;  // runs a new level is reported for
  VerdictOutputs outputs;
};

void add_trend_options(CLI::App& command, TrendCommandOptions& options);

// 0 nothing SLOWER, 1 a point's recent change made it slower, 2 bad usage or an unreadable file
// (then no output file is written).
int trend_command(const TrendCommandOptions& options);

}  // namespace collbench
