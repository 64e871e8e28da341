#pragma once
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli/output_options.h"

namespace collbench {

struct PredictCommandOptions {
  std::vector<std::string> files;
  std::string ranks = "512,1024";
  std::string sizes = "25M";
  std::optional<double> compute_ms;
  std::optional<std::string> overlap;  // a fraction, or "measured"
  std::string format = "table";
  int bootstrap_replicates = 200;
  OutputOptions output;
};

void add_predict_options(CLI::App& app, PredictCommandOptions& options);

// `collbench predict FILE...`: each curve's time at the rank counts and sizes asked for, from
// its rank families (harness/predict), printed and written to a file of its own. Returns the
// exit code.
int predict_command(const PredictCommandOptions& options, const std::vector<std::string>& argv);

}  // namespace collbench
