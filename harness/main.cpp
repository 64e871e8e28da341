// collbench: one binary, one subcommand per job (docs/DESIGN.md, "Command line").
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "backends/registry.h"
#include "harness/cli/check_command.h"
#include "harness/cli/command_guard.h"
#include "harness/cli/compare_command.h"
#include "harness/cli/fit_command.h"
#include "harness/cli/links_command.h"
#include "harness/cli/predict_command.h"
#include "harness/cli/report_command.h"
#include "harness/cli/run_command.h"
#include "harness/cli/plot_command.h"
#include "harness/cli/topo_command.h"
#include "harness/cli/trend_command.h"
#include "harness/errors.h"
#include "harness/provenance/launcher.h"
#include "harness/provenance/version.h"
#include "harness/report/reporter.h"
#include "harness/store/h5.h"
#include "harness/store/result_file.h"

int main(int argc, char** argv) {
  using namespace collbench;
  h5::skip_teardown_at_exit();
  CLI::App app{"collbench: collective-communication microbenchmarks into HDF5", "collbench"};
  app.require_subcommand(1);
  // The result files' schema too: what tests and other readers of the files check them against.
  app.set_version_flag("--version", fmt::format("collbench {} ({}), result file schema {}",
                                                collbench_version(), git_revision(),
                                                kSchemaVersion));

  RunOptions run_options;
  auto* run = app.add_subcommand("run", "measure collectives; one process per rank (mpirun, srun)");
  add_run_options(*run, run_options);

  FitCommandOptions fit_options;
  auto* fit = app.add_subcommand("fit", "fit alpha-beta models to a result file and store them in it");
  fit->add_option("file", fit_options.file, "result file (.h5)")->required();
  fit->add_option("--format", fit_options.format, "table or json")->capture_default_str();
  fit->add_option("--crossover-sizes", fit_options.crossover_sizes,
                  "sizes for the rank-count crossover p* (default 25M and the largest measured)")
      ->delimiter(',');
  fit->add_option("--bootstrap", fit_options.bootstrap_replicates, "bootstrap replicates")
      ->capture_default_str();
  fit->add_flag("--holdout", fit_options.holdout,
                "also fit every other size alone and report the error on the sizes left out");
  fit->add_flag("--segments", fit_options.segments,
                "also print every segment of every curve (the table; JSON always has them)");
  fit->add_option("--links", fit_options.links,
                  "a file of `collbench links` on the same hosts: store and print each point's "
                  "time over what those links allow");

  LinksOptions links_options;
  auto* links = app.add_subcommand(
      "links", "UCX latency and bandwidth between every pair of hosts; slow links named (mpirun)");
  add_links_options(*links, links_options);

  ReportOptions report_options;
  PredictCommandOptions predict_options;
  auto* predict = app.add_subcommand(
      "predict", "what-if: each collective's time and a step's scaling efficiency at rank counts "
                 "not measured");
  add_predict_options(*predict, predict_options);

  auto* report = app.add_subcommand("report", "print a stored run again");
  report->add_option("file", report_options.file, "result file (.h5)")->required();
  report->add_option("--format", report_options.format,
                     fmt::format("{}", fmt::join(reporter_formats(), ", ")))
      ->capture_default_str();

  CompareCommandOptions compare_options;
  auto* compare =
      app.add_subcommand("compare", "noise-aware regression verdicts: NEW.h5 against BASE.h5");
  add_compare_options(*compare, compare_options);

  TrendCommandOptions trend_options;
  auto* trend = app.add_subcommand(
      "trend", "a nightly history per point with its change points: result files or folders");
  add_trend_options(*trend, trend_options);

  CheckOptions check_options;
  auto* check = app.add_subcommand("check", "acceptance verdicts: a result file against a spec");
  add_check_options(*check, check_options);

  auto* plot = app.add_subcommand(
      "plot", "figures and a one-page HTML report from a result file (python3, matplotlib)");
  // plots/collbench_plot.py parses its own options, --help included.
  plot->allow_extras()->prefix_command()->set_help_flag();

  TopoOptions topo_options;
  auto* topo = app.add_subcommand("topo", "print where every rank of the job runs (mpirun, srun)");
  topo->add_option("--backend", topo_options.backend, "nccl or mpi (default: as for run)");

  const bool may_print = launcher_rank().value_or(0) == 0;
  std::vector<std::string> commands;
  for (const auto* command : app.get_subcommands({})) commands.push_back(command->get_name());
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    if (may_print)
      fmt::print(stderr, "collbench: unknown command '{}' (expected one of {})\n", argv[1],
                 fmt::join(commands, ", "));
    return kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::Success& listed) {  // run --list-ops
    return app.exit(listed);
  } catch (const CLI::ParseError& error) {
    if (may_print) {
      const CLI::App* failed = &app;
      for (const auto* command : app.get_subcommands({}))
        if (command->parsed()) failed = command;
      fmt::print(stderr, "collbench{}: {}\nRun with --help for the options.\n",
                 failed == &app ? "" : " " + failed->get_name(), error.what());
    }
    return kExitUsage;
  }

  const std::vector<std::string> arguments(argv, argv + argc);
  struct Command {
    CLI::App* app;
    std::function<int()> body;
    bool communicates;  // the others give the libraries' crash handlers back
  };
  const Command bodies[] = {
      {run, [&] { return run_command(run_options, arguments); }, true},
      {topo, [&] { return topo_command(topo_options); }, true},
      {links, [&] { return links_command(links_options, arguments); }, true},
      {plot, [&] { return plot_command(plot->remaining()); }, false},
      {fit, [&] { return fit_command(fit_options); }, false},
      {predict, [&] { return predict_command(predict_options, arguments); }, false},
      {check, [&] { return check_command(check_options); }, false},
      {compare, [&] { return compare_command(compare_options); }, false},
      {trend, [&] { return trend_command(trend_options); }, false},
      {report, [&] { return report_command(report_options); }, false}};
  for (const Command& command : bodies) {
    if (!command.app->parsed()) continue;
    if (!command.communicates) give_back_library_crash_handlers();
    return run_guarded(command.app->get_name(), may_print, command.body);
  }
  return kExitUsage;
}
