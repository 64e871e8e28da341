#pragma once
// `collbench compare BASE.h5... NEW.h5`: regression verdicts judged against the spread between
// launches, point by point (harness/compare/compare_files.h says which launches, for which
// files given), as a table or JSON, and as JUnit and Prometheus files. A folder among the
// baselines stands for its .h5 files, in name order (the default file names sort by time);
// `--history DIR` lends a single BASE a history's spread; `--interleaved A B` judges two folders
// of alternating launches.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli/verdict_outputs.h"

namespace collbench {

struct CompareCommandOptions {
  std::vector<std::string> files;  // BASE... NEW
  std::vector<std::string> history;  // files or folders
  bool interleaved = false;
  std::string threshold = "5%";  // "5%" or a fraction, "0.05"
  double confidence = 0.95;
  int bootstrap_replicates = 2000;
  std::uint64_t seed = 1;
  VerdictOutputs outputs;
};

// Adds the subcommand's arguments and options to `command`.
void add_compare_options(CLI::App& command, CompareCommandOptions& options);

// 0 nothing SLOWER, 1 something SLOWER, 2 bad usage or an unreadable or foreign file (then no
// output file is written).
int compare_command(const CompareCommandOptions& options);

}  // namespace collbench
