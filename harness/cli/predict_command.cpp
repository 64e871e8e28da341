#include "harness/cli/predict_command.h"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "harness/cli/option_values.h"
#include "harness/errors.h"
#include "harness/predict/curve_predictions.h"
#include "harness/predict/hierarchy_against_flat.h"
#include "harness/provenance/clock.h"
#include "harness/provenance/provenance.h"
#include "harness/provenance/version.h"
#include "harness/report/hierarchy_report.h"
#include "harness/report/prediction_report.h"
#include "harness/store/prediction_file.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

PredictRequest request_of(const PredictCommandOptions& o) {
  PredictRequest request;
  for (const std::string& item : split_list(o.ranks)) {
    std::size_t used = 0;
    int ranks = 0;
    try {
      ranks = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    require(used == item.size() && ranks >= 2,
            fmt::format("--ranks: '{}' is not a rank count of 2 or more", item));
    request.ranks.push_back(ranks);
  }
  for (const std::string& item : split_list(o.sizes)) {
    const std::size_t size = size_option(item, "--size");
    require(size > 0, "--size: a size must be more than 0 bytes");
    request.sizes_bytes.push_back(static_cast<double>(size));
  }
  require(o.bootstrap_replicates >= 20, "--bootstrap must be at least 20 replicates");
  request.options.bootstrap_replicates = o.bootstrap_replicates;
  require(o.format == "table" || o.format == "json",
          fmt::format("--format: unknown format '{}' (table or json)", o.format));
  return request;
}

std::optional<StepShape> step_of(const PredictCommandOptions& o) {
  require(!o.overlap || o.compute_ms,
          "--overlap needs --compute-ms: the overlap is a share of the step's compute");
  if (!o.compute_ms) return std::nullopt;
  require(*o.compute_ms > 0, "--compute-ms: the compute time must be more than 0");
  StepShape step;
  step.compute_s = *o.compute_ms * 1e-3;
  const std::string overlap = o.overlap.value_or("0");
  if (overlap == "measured") {
    step.measured_overlap = true;
    return step;
  }
  std::size_t used = 0;
  try {
    step.overlap = std::stod(overlap, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  require(used == overlap.size() && step.overlap >= 0 && step.overlap <= 1,
          fmt::format("--overlap: '{}' is neither a fraction from 0 to 1 nor 'measured'",
                      overlap));
  return step;
}

std::vector<PointResult> points_of(const std::vector<std::string>& files) {
  std::vector<PointResult> points;
  for (const std::string& path : files) {
    // The per-rank samples feed the tail (curve_tails.h).
    ResultFile file = read_result_file(path, true);
    if (file.links)
      throw UsageError(fmt::format("{} is a file of `collbench links`; predict reads the files "
                                   "of `collbench run`",
                                   path));
    std::ranges::move(file.points, std::back_inserter(points));
  }
  return points;
}

}  // namespace

void add_predict_options(CLI::App& app, PredictCommandOptions& o) {
  app.add_option("files", o.files, "result files of `collbench run` (.h5), pooled")->required();
  app.add_option("--ranks", o.ranks, "rank counts to predict (a list)")->capture_default_str();
  app.add_option("--size", o.sizes, "message sizes to predict (a list; K, M, G: powers of 1024)")
      ->capture_default_str();
  app.add_option("--compute-ms", o.compute_ms,
                 "a data-parallel step's compute time (ms): print its scaling efficiency");
  app.add_option("--overlap", o.overlap,
                 "the fraction of the collective hidden behind that compute (0 to 1; default 0), "
                 "or 'measured': as measured beside a load (run --overlap-load)");
  app.add_option("--format", o.format, "table or json")->capture_default_str();
  app.add_option("--bootstrap", o.bootstrap_replicates, "bootstrap replicates")
      ->capture_default_str();
  add_output_options(app, o.output, "predictions file", "predict");
}

int predict_command(const PredictCommandOptions& o, const std::vector<std::string>& argv) {
  const PredictRequest request = request_of(o);
  const std::optional<StepShape> step = step_of(o);
  const OutputFile output = resolve_output(o.output, "predict");
  const std::filesystem::path& out = output.path;
  require(output.force || !std::filesystem::exists(out),
          fmt::format("--out: {} exists (--force replaces it)", out.string()));
  require(output.default_path ||
              std::filesystem::is_directory(out.parent_path().empty() ? std::filesystem::path(".")
                                                                      : out.parent_path()),
          fmt::format("--out: {} is not a directory", out.parent_path().string()));
  const std::vector<PointResult> points = points_of(o.files);
  const Predictions predictions = predict_curves(points, request);
  const std::vector<HierarchyAgainstFlat> hierarchy = hierarchy_against_flat(points);
  if (predictions.curves.empty())
    throw UsageError(fmt::format(
        "no curve of {} was measured at two rank counts or more: measure T(p) with `run --ranks "
        "2,3,4` (or pass files of several rank counts)",
        fmt::join(o.files, ", ")));
  if (output.default_path) std::filesystem::create_directories(out.parent_path());
  write_prediction_file(out, output.force, predictions,
                        {.provenance = {{"command_line", shell_quoted(argv)},
                                        {"collbench_version", std::string(collbench_version())},
                                        {"git_revision", std::string(git_revision())},
                                        {"start_utc", utc_now_iso8601()}},
                         .inputs = o.files,
                         .step = step});
  if (o.format == "json") {
    auto json = predictions_json(predictions, step);
    json["hierarchy_against_flat"] = hierarchy_json(hierarchy);
    std::cout << json.dump(2) << '\n';
  } else {
    print_predictions(std::cout, predictions, step);
    for (const std::string& line : hierarchy_lines(hierarchy)) fmt::print("{}\n", line);
  }
  return kExitOk;
}

}  // namespace collbench
