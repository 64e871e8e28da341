#include "trend_command.h"

#include <iostream>

#include <fmt/format.h>

#include "harness/errors.h"
#include "harness/cli/verdict_outputs.h"
#include "harness/store/result_file.h"
#include "harness/trend/trend_report.h"

namespace collbench {
namespace {

const VerdictJob kTrendJob{"collbench trend", "collbench_trend", ""};

ChangePointOptions change_point_options(const TrendCommandOptions& o) {
  check_verdict_outputs(o.outputs);
  if (!(o.alpha > 0 && o.alpha < 1))
    throw UsageError(fmt::format("--alpha: {} must lie between 0 and 1", o.alpha));
  if (o.recent < 2)
    throw UsageError(fmt::format("--recent: {} runs; a level has at least 2", o.recent));
  ChangePointOptions options;
  options.min_magnitude = parse_threshold(o.threshold);
  options.alpha = o.alpha;
  return options;
}

}  // namespace

void add_trend_options(CLI::App& command, TrendCommandOptions& o) {
  command.add_option("files", o.files,
                     "result files, or folders of them (their .h5 files in name order), oldest "
                     "first")
      ->required();
  command.add_option("--threshold", o.threshold,
                     "smallest change of level that counts: 5% (or 0.05) either way")
      ->capture_default_str();
  command.add_option("--alpha", o.alpha,
                     "significance of a change point, after the correction over candidates")
      ->capture_default_str();
  command.add_option("--recent", o.recent,
                     "a change is a verdict while its level holds at most this many runs; "
                     "older, it is the normal level")
      ->capture_default_str();
  add_verdict_output_options(command, o.outputs,
                             "also write the verdicts as JUnit XML to this file",
                             "also write them in the Prometheus text format to this file "
                             "(atomically)");
}

int trend_command(const TrendCommandOptions& command) {
  const ChangePointOptions options = change_point_options(command);
  const std::vector<std::string> files = result_files(command.files);
  if (files.size() < 2)
    throw UsageError(fmt::format("a trend needs at least two runs; {} given", files.size()));
  const Trend trend = trend_of_files(files, options, static_cast<std::size_t>(command.recent));
  write_verdict_files(command.outputs, kTrendJob,
                      trend.latest_run,
                      trend_verdict_records(trend));
  if (command.outputs.format == "json")
    std::cout << trend_json(trend).dump(2) << '\n';
  else
    print_trend_table(std::cout, trend);
  std::cout.flush();
  return trend.alert_count() == 0 ? kExitOk : kExitWrongOrFailed;
}

}  // namespace collbench
