#include "fit_command.h"

#include <iostream>

#include <fmt/format.h>

#include "harness/errors.h"
#include "harness/plan/sizes.h"
#include "harness/report/model_report.h"
#include "harness/store/model_tables.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

FitOptions fit_options(const FitCommandOptions& options) {
  FitOptions fit;
  fit.bootstrap_replicates = options.bootstrap_replicates;
  fit.holdout = options.holdout;
  for (const auto& text : options.crossover_sizes) {
    try {
      fit.crossover_sizes.push_back(static_cast<double>(parse_size(text)));
    } catch (const std::invalid_argument& error) {
      throw UsageError(fmt::format("--crossover-sizes: {}", error.what()));
    }
  }
  if (options.bootstrap_replicates < 20)
    throw UsageError("--bootstrap must be at least 20 replicates");
  if (options.format != "table" && options.format != "json")
    throw UsageError(fmt::format("--format: unknown format '{}' (table or json)", options.format));
  return fit;
}

}  // namespace

int fit_command(const FitCommandOptions& options) {
  const FitOptions fit = fit_options(options);
  const ResultFile file = read_result_file(options.file, true);
  if (file.points.empty())
    throw UsageError(fmt::format("{} holds no points to fit", options.file));
  const ModelReport report = fit_models(file.points, fit);
  store_models(options.file, report);
  if (options.format == "json")
    std::cout << model_json(report).dump(2) << '\n';
  else
    print_model_table(std::cout, report, options.segments);
  return kExitOk;
}

}  // namespace collbench
