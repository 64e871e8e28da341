#include "compare_command.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/usage_error.h"
#include "harness/cli/verdict_outputs.h"
#include "harness/compare/compare_files.h"
#include "harness/compare/compare_report.h"
#include "harness/report/verdict_files.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

constexpr const char* kPromPrefix = "collbench_compare";
constexpr const char* kJunitSuite = "collbench compare";

double parse_threshold(std::string text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value))
    throw UsageError(fmt::format("--threshold: '{}' is not a number (write 5% or 0.05)",
                                 text + (percent ? "%" : "")));
  if (!percent && value > 1)
    throw UsageError(fmt::format("--threshold: {} is ambiguous: write {}% for a percentage, or a "
                                 "fraction such as 0.05",
                                 text, text));
  const double fraction = percent ? value / 100 : value;
  if (!(fraction > 0) || fraction > 10)
    throw UsageError(fmt::format("--threshold: {} must be above 0% and at most 1000%",
                                 text + (percent ? "%" : "")));
  return fraction;
}

void check_output_path(const std::string& option, const std::string& file) {
  if (file.empty()) return;
  const std::filesystem::path path(file);
  const std::filesystem::path parent =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(parent, error))
    throw UsageError(fmt::format("{} {}: no such directory {}", option, file, parent.string()));
  if (std::filesystem::is_directory(path, error))
    throw UsageError(fmt::format("{} {}: is a directory", option, file));
}

CompareOptions compare_options(const CompareCommandOptions& o) {
  check_output_format(o.format);
  if (!(o.confidence >= 0.5 && o.confidence < 1))
    throw UsageError(fmt::format("--confidence: {} must be at least 0.5 and below 1", o.confidence));
  if (o.bootstrap_replicates < 100)
    throw UsageError("--bootstrap must be at least 100 replicates");
  check_output_path("--junit", o.junit);
  check_output_path("--prom", o.prom);
  CompareOptions options;
  options.threshold = parse_threshold(o.threshold);
  options.confidence = o.confidence;
  options.replicates = o.bootstrap_replicates;
  options.seed = o.seed;
  return options;
}

void write_verdict_files(const CompareCommandOptions& o, const Comparison& c) {
  if (o.junit.empty() && o.prom.empty()) return;
  const std::vector<VerdictRecord> records = verdict_records(c);
  try {
    if (!o.junit.empty()) write_junit(o.junit, kJunitSuite, records);
    if (!o.prom.empty()) write_prometheus(o.prom, kPromPrefix, records);
  } catch (const std::runtime_error& error) {
    std::error_code ignored;
    if (!o.junit.empty()) std::filesystem::remove(o.junit, ignored);
    throw UsageError(error.what());
  }
}

}  // namespace

void add_compare_options(CLI::App& command, CompareCommandOptions& o) {
  command.add_option("base", o.base_file, "the baseline result file (.h5)")->required();
  command.add_option("new", o.new_file, "the result file to judge against it (.h5)")->required();
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
      command, o.format, o.junit, o.prom, "also write the verdicts as JUnit XML to this file",
      "also write them in the Prometheus text format to this file (atomically)");
}

int compare_command(const CompareCommandOptions& command) {
  try {
    const CompareOptions options = compare_options(command);
    const Comparison comparison = compare_files(command.base_file, command.new_file, options);
    write_verdict_files(command, comparison);
    if (command.format == "json")
      std::cout << comparison_json(comparison).dump(2) << '\n';
    else
      print_table(std::cout, comparison);
    std::cout.flush();
    return comparison.any_slower() ? kExitWrongOrFailed : kExitOk;
  } catch (const UsageError& error) {
    fmt::print(stderr, "collbench compare: {}\n", error.what());
  } catch (const InvalidResultFile& error) {
    fmt::print(stderr, "collbench compare: {}\n", error.what());
  }
  return kExitUsage;
}

}  // namespace collbench
