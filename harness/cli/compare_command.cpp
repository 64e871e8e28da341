#include "compare_command.h"

#include <iostream>
#include <string>
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

const VerdictJob kCompareJob{"collbench compare", "collbench_compare", ""};

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

// Each of A and B (folders, or files) as its launches in order.
std::vector<std::string> launches_of(const std::string& given) {
  auto files = result_files({given}, "");
  if (files.size() < 2)
    throw UsageError(fmt::format("--interleaved: {} holds {} launch; at least 2 pairs are needed",
                                 given, files.size()));
  return files;
}

Comparison compare_interleaved(const CompareCommandOptions& command,
                               const CompareOptions& options) {
  if (command.files.size() != 2)
    throw UsageError("--interleaved takes two folders, A and B, of alternating launches");
  if (!command.history.empty())
    throw UsageError("--history: interleaved pairs are their own spread between launches");
  const auto a = launches_of(command.files[0]), b = launches_of(command.files[1]);
  if (a.size() != b.size())
    throw UsageError(fmt::format("--interleaved: A holds {} launches and B {}; each pair needs "
                                 "one of each",
                                 a.size(), b.size()));
  return compare_interleaved_files(command.files[0], a, command.files[1], b, options);
}

Comparison compare(const CompareCommandOptions& command, const CompareOptions& options) {
  if (command.interleaved) return compare_interleaved(command, options);
  const std::string& new_file = command.files.back();
  const auto bases = result_files({command.files.begin(), command.files.end() - 1}, new_file);
  const auto history = command.history.empty() ? std::vector<std::string>{}
                                               : result_files(command.history, new_file);
  if (!history.empty() && bases.size() != 1)
    throw UsageError("--history takes one BASE: several baselines are a history themselves");
  if (history.size() == 1)
    throw UsageError(fmt::format("--history: {} is one launch; its spread needs two or more",
                                 history.front()));
  return compare_files(bases, new_file, history, options);
}

}  // namespace

void add_compare_options(CLI::App& command, CompareCommandOptions& o) {
  command
      .add_option("files", o.files,
                  "BASE... NEW: one or more baselines (files or folders of them, oldest first), "
                  "then the result file to judge")
      ->required()
      ->expected(2, -1);
  command.add_option("--history", o.history,
                     "earlier launches (files or folders) whose spread judges a single BASE "
                     "against NEW")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_flag("--interleaved", o.interleaved,
                   "A B: two folders of alternating launches (A1 B1 A2 B2 ...), judged pair by "
                   "pair");
  command.add_option("--threshold", o.threshold,
                     "smallest change that counts: 5% (or 0.05) slower, or 1/1.05 as fast")
      ->capture_default_str();
  command.add_option("--confidence", o.confidence,
                     "level of the intervals; 1 - confidence is the false discovery rate")
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
  const Comparison comparison = compare(command, options);
  write_verdict_files(command.outputs, kCompareJob,
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
