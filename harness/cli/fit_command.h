#pragma once
#include <string>
#include <vector>

namespace collbench {

struct FitCommandOptions {
  std::string file;
  std::string format = "table";
  std::vector<std::string> crossover_sizes;
  int bootstrap_replicates = 200;
  bool holdout = false;
  bool segments = false;  // the table shows each curve's segments under its headline
  std::string links;      // a file of `collbench links` to judge the points against
};

// `collbench fit FILE.h5`: fits every curve, prints the models and stores them in the file;
// with `links`, also each point's time over what those links allow (links/link_bounds.h).
// Returns the exit code.
int fit_command(const FitCommandOptions& options);

}  // namespace collbench
