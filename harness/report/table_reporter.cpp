#include "table_reporter.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "backends/tuning.h"
#include "harness/report/hierarchy_report.h"
#include "harness/report/link_bound_report.h"
#include "harness/report/model_report.h"
#include "harness/report/straggler_report.h"

namespace collbench {
namespace {

std::string time_text(double seconds) {
  const double us = seconds * 1e6;
  return us < 1e5 ? fmt::format("{:.2f}", us) : fmt::format("{:.0f}", us);
}

std::string wrong_text(std::int64_t wrong) {
  return wrong == kNotChecked ? "N/A" : fmt::format("{}", wrong);
}

std::string variant_text(const PointResult& point) {
  return fmt::format("{} B {}", point.key.size_bytes,
                     point.key.in_place ? "in place" : "out of place");
}

// Comment lines after a row: which check found its wrong elements, once per in-place variant,
// and why a point's numbers cannot be true here.
std::vector<std::string> row_notes(std::span<const PointResult> points,
                                   const PlausibilityBound& bound) {
  std::vector<std::string> notes;
  for (bool in_place : {false, true}) {
    const PointResult* head = headline_point(points, in_place);
    if (head && head->checks.failed())
      notes.push_back(fmt::format("# #wrong at {}: {}", variant_text(*head),
                                  checks_text(head->checks)));
  }
  for (const auto& point : points)
    if (point.implausible != Implausible::no)
      notes.push_back(fmt::format("# implausible at {} {}: {}", variant_text(point),
                                  name(point.key.mode), implausible_reason(point, bound)));
  return notes;
}

// A pinned algorithm or protocol opens a section of its own, so its footer averages its rows
// alone, as a separate nccl-tests run with NCCL_ALGO/NCCL_PROTO would.
bool same_section(const PointKey& a, const PointKey& b) {
  return a.backend == b.backend && a.collective == b.collective && a.placement == b.placement &&
         a.nranks == b.nranks && a.algorithm == b.algorithm && a.protocol == b.protocol;
}

bool tuned(const PointKey& key) { return !key.algorithm.empty() || !key.protocol.empty(); }

}  // namespace

void TableReporter::begin(const RunDescription& run) {
  fmt::print(out_, "# collbench {} | backend {} ({})\n", run.collbench_version, run.backend,
             run.backend_version);
  fmt::print(out_, "# {} ranks on {} node(s): {}\n", run.nranks, run.nodes,
             fmt::join(run.hosts, ","));
  fmt::print(out_, "# started {}: {}\n", run.start_utc, run.command_line);
  bound_ = run.plausibility;
  if (!bound_.copy.empty()) fmt::print(out_, "# plausible: {}\n", bound_text(bound_));
}

void TableReporter::open_section(const PointKey& key, std::span<const PointResult> points) {
  section_ = key;
  with_in_place_ = std::any_of(points.begin(), points.end(),
                               [](const PointResult& p) { return p.key.in_place; });
  busbw_sum_ = 0;
  busbw_count_ = 0;
  wrong_ = 0;
  checked_ = false;
  explained_.clear();
  step_explained_ = false;
  fmt::print(out_, "#\n# {} | placement {} | {} ranks | backend {}\n", name(key.collective),
             name(key.placement), key.nranks, key.backend);
  if (tuned(key))
    fmt::print(out_, "# {} algorithm {}, protocol {}\n", key.backend, or_auto(key.algorithm),
               or_auto(key.protocol));
  fmt::print(out_, "#\n");
  std::string labels, names, units;
  for (bool in_place : {false, true}) {
    labels += fmt::format("{:^37}", in_place ? "in-place" : "out-of-place");
    names += fmt::format("  {:>9}  {:>7}  {:>7}  {:>6}", "time", "algbw", "busbw", "#wrong");
    units += fmt::format("  {:>9}  {:>7}  {:>7}  {:>6}", "(us)", "(GB/s)", "(GB/s)", "");
  }
  for (bool in_place : {false, true}) {
    if (in_place && !with_in_place_) break;
    labels += fmt::format("  {:^20}", in_place ? "latency in-place" : "latency");
    names += fmt::format("  {:>9}  {:>9}", "median", "p99");
    units += fmt::format("  {:>9}  {:>9}", "(us)", "(us)");
  }
  labels += fmt::format("  {:>7}", "");
  names += fmt::format("  {:>7}", "ci");
  units += fmt::format("  {:>7}", "(95%)");
  fmt::print(out_, "# {:>10}  {:>12}  {:>8}  {:>6}  {:>4}{}\n", "", "", "", "", "", labels);
  fmt::print(out_, "# {:>10}  {:>12}  {:>8}  {:>6}  {:>4}{}\n", "size", "count", "type", "redop",
             "root", names);
  fmt::print(out_, "# {:>10}  {:>12}  {:>8}  {:>6}  {:>4}{}\n", "(B)", "(elements)", "", "", "",
             units);
}

void TableReporter::row(std::span<const PointResult> points) {
  if (points.empty()) return;
  const PointKey& key = points.front().key;
  if (!section_ || !same_section(*section_, key)) {
    if (section_) close_section();
    open_section(key, points);
  }
  std::string line = fmt::format("  {:>10}  {:>12}  {:>8}  {:>6}  {:>4}", key.size_bytes,
                                 key.count, name(key.datatype), redop_label(key), key.root);
  std::string latency;
  for (bool in_place : {false, true}) {
    const PointResult* head = headline_point(points, in_place);
    if (!head) {  // nccl-tests' word for a field it has no value for
      line += fmt::format("  {:>9}  {:>7}  {:>7}  {:>6}", "N/A", "N/A", "N/A", "N/A");
    } else {
      const std::int64_t wrong = head->checks.wrong();
      line += fmt::format("  {:>9}  {:>7.2f}  {:>7.2f}  {:>6}", time_text(head->summary.median),
                          head->algbw_gbps, head->busbw_gbps, wrong_text(wrong));
      busbw_sum_ += head->busbw_gbps;
      ++busbw_count_;
      if (wrong != kNotChecked) {
        checked_ = true;
        wrong_ += wrong;
      }
    }
    if (in_place && !with_in_place_) continue;
    const PointResult* lat = find_point(points, in_place, Mode::latency);
    latency += lat ? fmt::format("  {:>9}  {:>9}", time_text(lat->summary.median),
                                 time_text(lat->summary.p99))
                   : fmt::format("  {:>9}  {:>9}", "-", "-");
  }
  const PrecisionText precision = precision_text(points);
  // A mark is explained where the section first uses it, so that rows still print as they
  // finish.
  for (Mark mark : precision.marks)
    if (explained_.insert(mark).second) fmt::print(out_, "{}\n", legend(mark));
  if (const PointResult* lat = find_point(points, false, Mode::latency); lat && !step_explained_) {
    const std::string line = step_legend(*lat);
    step_explained_ = !line.empty();
    if (step_explained_) fmt::print(out_, "{}\n", line);
  }
  fmt::print(out_, "{}{}  {:>7}\n", line, latency, precision.text);
  for (const auto& note : row_notes(points, bound_)) fmt::print(out_, "{}\n", note);
  out_.flush();
}

void TableReporter::close_section() {
  const double average = busbw_count_ ? busbw_sum_ / busbw_count_ : 0.0;
  fmt::print(out_, "# Out of bounds values : {} {}\n", checked_ ? fmt::format("{}", wrong_) : "N/A",
             !checked_ ? "unchecked" : wrong_ == 0 ? "OK" : "FAILED");
  fmt::print(out_, "# Avg bus bandwidth    : {:.4f} \n#\n", average);
  const PointKey& key = *section_;
  std::string section =
      fmt::format("{}/{}/{}", name(key.collective), name(key.placement), key.nranks);
  if (tuned(key)) section += fmt::format("/{}/{}", or_auto(key.algorithm), or_auto(key.protocol));
  averages_.push_back(fmt::format("{} {:.4f}", section, average));
}

// nccl-tests runs one collective and prints one average; a sweep prints one per section, so a
// scraper that takes the last line would read the last section's. This line names each.
void TableReporter::models(const ModelReport& report) {
  for (const auto& line : model_footer_lines(report)) sections_ += line + '\n';
}

void TableReporter::hierarchy(std::span<const HierarchyAgainstFlat> comparisons) {
  for (const auto& line : hierarchy_lines(comparisons)) sections_ += line + '\n';
}

void TableReporter::stragglers(const StragglerRecord& record, std::string_view binding_warning) {
  for (const auto& line : straggler_footer_lines(record, std::string(binding_warning)))
    sections_ += line + '\n';
}

void TableReporter::link_bounds(const LinkBoundRecord& record,
                                std::span<const PointResult> points) {
  std::ostringstream text;
  print_link_bounds(text, record, points);
  sections_ += text.str();
}

void TableReporter::end() {
  if (section_) close_section();
  if (!averages_.empty())
    fmt::print(out_, "# collbench avg bus bandwidth (GB/s) by section: {}\n",
               fmt::join(averages_, ", "));
  out_ << sections_;
  out_.flush();
}

}  // namespace collbench
