#include "report_command.h"

#include <iostream>

#include <fmt/format.h>

#include "harness/cli/run_description.h"
#include "harness/errors.h"
#include "harness/predict/hierarchy_against_flat.h"
#include "harness/provenance/provenance.h"
#include "harness/report/link_report.h"
#include "harness/report/reporter.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

void print_unfinished_note(const ResultFile& file, const std::string& path) {
  if (const std::string note = unfinished_note(file, path); !note.empty())
    fmt::print(stderr, "collbench report: note: {}\n", note);
}

// A file of `collbench links`: its points, and its fits and slow links once the run finished.
int report_links(const ReportOptions& options, const ResultFile& file) {
  const LinkRecord& record = *file.links;
  if (options.format == "json") {
    fmt::print("{}", link_record_json(record));
  } else if (options.format == "table") {
    fmt::print("# collbench links: {}\n{}", file.provenance.text_of("command_line"),
               link_points_header());
    for (const LinkPoint& point : record.points) fmt::print("{}", link_point_row(point));
    if (record.analysis) fmt::print("{}", link_summary(*record.analysis, record.shortfall));
  } else {
    throw UsageError(fmt::format("--format: a links file prints as table or json, not '{}'",
                                 options.format));
  }
  print_unfinished_note(file, options.file);
  return kExitOk;
}

}  // namespace

int report_command(const ReportOptions& options) {
  // With the samples: a point whose rounds disagree is printed with their spread, which only
  // its samples hold.
  const ResultFile file = read_result_file(options.file, true);
  if (file.links) return report_links(options, file);
  report_run(file, *make_reporter(options.format, std::cout));
  print_unfinished_note(file, options.file);
  return kExitOk;
}

void report_run(const ResultFile& file, Reporter& reporter) {
  reporter.begin(describe_run(file.provenance, file.topology));
  const auto& points = file.points;
  for (std::size_t first = 0; first < points.size();) {
    std::size_t last = first + 1;
    while (last < points.size() && same_row(points[first].key, points[last].key)) ++last;
    reporter.row(std::span(points).subspan(first, last - first));
    first = last;
  }
  if (file.models) reporter.models(*file.models);
  if (const auto hierarchy = hierarchy_against_flat(points); !hierarchy.empty())
    reporter.hierarchy(hierarchy);
  if (file.stragglers)
    reporter.stragglers(*file.stragglers, file.provenance.text_of(kBindingWarning));
  if (file.link_bounds) reporter.link_bounds(*file.link_bounds, points);
  reporter.end();
}

}  // namespace collbench
