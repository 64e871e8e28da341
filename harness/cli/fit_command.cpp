#include "fit_command.h"

#include <iostream>

#include <fmt/format.h>

#include "harness/errors.h"
#include "harness/plan/run_stragglers.h"
#include "harness/plan/sizes.h"
#include "harness/provenance/provenance.h"
#include "harness/report/link_bound_report.h"
#include "harness/report/model_report.h"
#include "harness/report/straggler_report.h"
#include "harness/store/h5.h"
#include "harness/store/link_bound_table.h"
#include "harness/store/model_tables.h"
#include "harness/store/result_file.h"
#include "harness/store/straggler_table.h"

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

// The links' fits, from a finished `collbench links` file.
LinkBoundRecord bound_by_links_file(const ResultFile& run, const std::string& run_path,
                                    const std::string& path) {
  const ResultFile links = read_result_file(path, false);
  if (!links.links)
    throw UsageError(fmt::format("--links: {} is not a file of `collbench links`", path));
  if (!links.links->analysis)
    throw UsageError(fmt::format("--links: {} is from a links run that did not finish; it holds "
                                 "no fitted links",
                                 path));
  LinkBoundRecord record{.bounds = bound_by_links(run.points, run.topology,
                                                  links.links->analysis->fits),
                         .links_file = path,
                         .links_start_utc = links.provenance.text_of("start_utc")};
  if (record.bounds.empty())
    throw UsageError(fmt::format("--links: {} measured no links between the hosts of {}'s "
                                 "points (a point spanning hosts needs every pair of them; one on "
                                 "a single host needs links --between ranks there)",
                                 path, run_path));
  return record;
}

}  // namespace

int fit_command(const FitCommandOptions& options) {
  const FitOptions fit = fit_options(options);
  const ResultFile file = read_result_file(options.file, true);
  if (file.points.empty())
    throw UsageError(fmt::format("{} holds no points to fit", options.file));
  std::optional<LinkBoundRecord> bounds;
  if (!options.links.empty()) bounds = bound_by_links_file(file, options.file, options.links);
  // Opened before the fits, so that a file another process holds fails at once, and kept open
  // until all is written, so that no process opens it between two tables.
  h5::Handle out = h5::open_file_for_writing(options.file, "the fits");
  const ModelReport report = fit_models(file.points, fit);
  // Named again from the samples, as the run named them: a run killed before its end gets them.
  RunStragglers search(file.topology);
  for (const PointResult& point : file.points) search.add(point);
  const StragglerRecord stragglers = search.record();
  write_model_tables(out.get(), report);
  write_straggler_table(out.get(), stragglers);
  if (bounds) write_link_bound_table(out.get(), *bounds);
  out.reset();
  if (options.format == "json") {
    auto json = model_json(report);
    if (bounds) json["link_bounds"] = link_bounds_json(*bounds, file.points);
    json["stragglers"] = stragglers_json(stragglers);
    std::cout << json.dump(2) << '\n';
  } else {
    print_model_table(std::cout, report, options.segments);
    if (bounds) print_link_bounds(std::cout, *bounds, file.points);
    for (const auto& line :
         straggler_footer_lines(stragglers, file.provenance.text_of(kBindingWarning)))
      std::cout << line << '\n';
  }
  if (const std::string note = unfinished_note(file, options.file); !note.empty())
    fmt::print(stderr, "collbench fit: note: {}; fitted those\n", note);
  return kExitOk;
}

}  // namespace collbench
