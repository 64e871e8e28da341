#include "structured_reporters.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "backends/tuning.h"
#include "harness/report/convergence_mark.h"
#include "harness/report/hierarchy_report.h"
#include "harness/report/link_bound_report.h"
#include "harness/report/model_report.h"
#include "harness/report/point_fields.h"
#include "harness/report/straggler_report.h"

namespace collbench {
namespace {

std::string csv_cell(const nlohmann::ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

void CsvReporter::row(std::span<const PointResult> points) {
  for (const auto& point : points) {
    const auto fields = point_fields(point);
    if (!header_written_) {
      std::vector<std::string> names;
      for (const auto& item : fields.items()) names.push_back(item.key());
      fmt::print(out_, "{}\n", fmt::join(names, ","));
      header_written_ = true;
    }
    std::vector<std::string> cells;
    for (const auto& item : fields.items()) cells.push_back(csv_cell(item.value()));
    fmt::print(out_, "{}\n", fmt::join(cells, ","));
  }
}

void JsonLinesReporter::row(std::span<const PointResult> points) {
  for (const auto& point : points) out_ << point_fields(point).dump() << '\n';
}

void JsonReporter::begin(const RunDescription& run) {
  document_ = run;
  document_["points"] = nlohmann::ordered_json::array();
}

void JsonReporter::row(std::span<const PointResult> points) {
  for (const auto& point : points) document_["points"].push_back(point_fields(point));
}

void JsonReporter::models(const ModelReport& report) { document_["models"] = model_json(report); }

void JsonReporter::hierarchy(std::span<const HierarchyAgainstFlat> comparisons) {
  document_["hierarchy_against_flat"] = hierarchy_json(comparisons);
}

// The warning is in the document's run already.
void JsonReporter::stragglers(const StragglerRecord& record, std::string_view) {
  document_["stragglers"] = stragglers_json(record);
}

void JsonReporter::link_bounds(const LinkBoundRecord& record,
                               std::span<const PointResult> points) {
  document_["link_bounds"] = link_bounds_json(record, points);
}

void JsonReporter::end() { out_ << document_.dump(2) << '\n'; }

MarkdownReporter::MarkdownReporter(std::ostream& out) : PointRecordsReporter(out) {
  fmt::print(out_,
             "| collective | type | redop | ranks | algorithm | protocol | size (B) | mode | "
             "in place | median (us) | p99 (us) | busbw (GB/s) | #wrong | ci |\n"
             "|---|---|---|--:|---|---|--:|---|---|--:|--:|--:|--:|--:|\n");
}

void MarkdownReporter::row(std::span<const PointResult> points) {
  for (const auto& p : points)
    fmt::print(out_,
               "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.3f} | {} | {} |\n",
               name(p.key.collective), name(p.key.datatype), redop_label(p.key), p.key.nranks,
               or_auto(p.key.algorithm), or_auto(p.key.protocol), p.key.size_bytes,
               name(p.key.mode), p.key.in_place ? "yes" : "no",
               p.summary.median * 1e6, p.summary.p99 * 1e6, p.busbw_gbps,
               p.checks.wrong() == kNotChecked ? "N/A" : fmt::format("{}", p.checks.wrong()), convergence_mark(p));
}

}  // namespace collbench
