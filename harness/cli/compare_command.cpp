#include "compare_command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/errors.h"
#include "harness/cli/verdict_outputs.h"
#include "harness/compare/compare_files.h"
#include "harness/compare/compare_report.h"
#include "harness/report/verdict_files.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

const VerdictJob kJob{"collbench compare", "collbench_compare", ""};

CompareOptions compare_options(const CompareCommandOptions& o) {
  check_verdict_outputs(o.outputs);
  if (!(o.confidence >= 0.5 && o.confidence < 1))
    throw UsageError(fmt::format("--confidence: {} must be at least 0.5 and below 1", o.confidence));
  if (o.bootstrap_replicates < 100)
    throw UsageError("--bootstrap must be at least 100 replicates");
  CompareOptions options;
  options.threshold = parse_threshold(o.threshold);
  options.confidence = o.confidence;
  options.replicates = o.bootstrap_replicates;
  options.seed = o.seed;
  return options;
}

void print_calibration(const Comparison& comparison) {
  const Calibration calibration = calibrate(comparison.points);
  const std::size_t alarms = comparison.point_counts.slower + comparison.point_counts.faster;
  fmt::print("# calibrate: {} and {} taken as two runs of an unchanged system\n",
             comparison.base_file, comparison.new_file);
  fmt::print("# calibrate: at the {:g}% threshold, {} of {} points are false alarms (SLOWER or "
             "FASTER)\n",
             comparison.options.threshold * 100, alarms, calibration.points);
  // Rounded up to a hundredth of a percent, so that the printed value can be passed as it is.
  fmt::print("# calibrate: at most {:g}% of the points are false alarms from a threshold of "
             "{:g}% on\n",
             calibration.rate * 100, std::ceil(calibration.threshold * 1e4) / 100);
}

}  // namespace

void add_compare_options(CLI::App& command, CompareCommandOptions& o) {
  command
      .add_option("files", o.files,
                  "BASE... NEW: one or more baselines (files or folders of them, oldest first), "
                  "then the result file to judge")
      ->required()
      ->expected(2, -1);
  command.add_flag("--calibrate", o.calibrate,
                   "A B, two runs of an unchanged system: the threshold that keeps false alarms "
                   "under 5%");
  command.add_option("--threshold", o.threshold,
                     "smallest change that counts: 5% (or 0.05) slower, or 1/1.05 as fast")
      ->capture_default_str();
  command.add_option("--confidence", o.confidence, "level of the bootstrap interval of the ratio")
      ->capture_default_str();
  command.add_option("--bootstrap", o.bootstrap_replicates, "bootstrap replicates per point")
      ->capture_default_str();
  command.add_option("--seed", o.seed, "bootstrap seed (same seed, same intervals)")
      ->capture_default_str();
  add_verdict_output_options(
      command, o.outputs, "also write the verdicts as JUnit XML to this file",
      "also write them in the Prometheus text format to this file (atomically)");
}

int compare_command(const CompareCommandOptions& command) {
  const CompareOptions options = compare_options(command);
  const std::string& new_file = command.files.back();
  const auto bases =
      result_files({command.files.begin(), command.files.end() - 1}, new_file);
  if (command.calibrate && bases.size() != 1)
    throw UsageError("--calibrate takes two files, A and B, of an unchanged system");
  const Comparison comparison = compare_files(bases, new_file, options);
  if (command.calibrate) {
    print_calibration(comparison);
    return kExitOk;
  }
  write_verdict_files(command.outputs, kJob,
                      comparison.new_run,
                      verdict_records(comparison));
  if (command.outputs.format == "json")
    std::cout << comparison_json(comparison).dump(2) << '\n';
  else
    print_table(std::cout, comparison);
  std::cout.flush();
  return comparison.any_slower() ? kExitWrongOrFailed : kExitOk;
}

}  // namespace collbench
