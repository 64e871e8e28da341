#pragma once
// `collbench compare BASE.h5 NEW.h5`: noise-aware regression verdicts, point by point and fit by
// fit (harness/compare/), as a table or JSON, and as JUnit and Prometheus files.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace collbench {

struct CompareCommandOptions {
  std::string base_file;
  std::string new_file;
  std::string threshold = "5%";  // "5%" or a fraction, "0.05"
  double confidence = 0.95;
  int bootstrap_replicates = 2000;
  std::uint64_t seed = 1;
  std::string format = "table";  // table or json
  std::string junit;             // file, or empty
  std::string prom;              // file, or empty
};

// Adds the subcommand's arguments and options to `command`.
void add_compare_options(CLI::App& command, CompareCommandOptions& options);

// 0 nothing SLOWER, 1 something SLOWER, 2 bad usage or an unreadable or foreign file (then no
// output file is written).
int compare_command(const CompareCommandOptions& options);

}  // namespace collbench
