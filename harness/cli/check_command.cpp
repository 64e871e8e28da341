#include "check_command.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/check/spec.h"
#include "harness/check/verdicts.h"
#include "harness/cli/usage_error.h"
#include "harness/cli/verdict_outputs.h"
#include "harness/plan/sizes.h"
#include "harness/report/verdict_files.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

constexpr const char* kPrefix = "collbench_check";

std::string sizes_label(const SizeRange& sizes) {
  if (sizes.any()) return "any";
  const bool open = sizes.high == std::numeric_limits<std::size_t>::max();
  return fmt::format("{}-{}", sizes.low, open ? std::string() : std::to_string(sizes.high));
}

std::string nranks_label(const RankRange& r) {
  if (r.any()) return "any";
  if (r.low == r.high) return std::to_string(r.low);
  return fmt::format("{}-{}", r.low,
                     r.high == std::numeric_limits<int>::max() ? std::string() : std::to_string(r.high));
}

nlohmann::ordered_json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json number_or_null(const std::optional<double>& value) {
  return value ? number_or_null(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json json_of(const RuleVerdict& v) {
  const Threshold& t = v.rule.threshold;
  nlohmann::ordered_json rule;
  rule["index"] = v.rule.index;
  rule["line"] = v.rule.line;
  rule["name"] = v.rule.name;
  rule["verdict"] = name(v.verdict);
  rule["selection"] = describe(v.rule.selection);
  rule["metric"] = name(t.metric);
  rule["unit"] = is_bandwidth(t.metric) ? "GB/s" : "us";  // canonical: every number below
  rule["threshold"] = {{"key", t.key},
                       {"floor", number_or_null(t.floor)},
                       {"ceiling", number_or_null(t.ceiling)},
                       {"reference", number_or_null(t.reference)},
                       {"warn_within", t.warn_within},
                       {"text", describe(t)}};
  rule["optional"] = v.rule.optional;
  rule["judged"] = v.judged;
  rule["failing"] = v.failing;
  rule["warning"] = v.warning;
  if (v.measured) {
    const Measured& m = *v.measured;
    nlohmann::ordered_json measured = {{"value", number_or_null(m.value)},
                                       {"ci_low", number_or_null(m.low)},
                                       {"ci_high", number_or_null(m.high)},
                                       {"where", m.where},
                                       {"collective", name(m.key.collective)},
                                       {"placement", m.key.placement},
                                       {"nranks", m.key.nranks},
                                       {"datatype", name(m.key.datatype)},
                                       {"mode", name(m.key.mode)},
                                       {"in_place", m.key.in_place}};
    if (is_fit_metric(t.metric)) {
      measured["segment_min_bytes"] = m.segment_min_bytes;
      measured["segment_max_bytes"] = m.segment_max_bytes;
    } else {
      measured["size_bytes"] = m.key.size_bytes;
    }
    rule["measured"] = measured;
  } else {
    rule["measured"] = nullptr;
  }
  rule["message"] = v.message;
  return rule;
}

void print_table(const std::vector<RuleVerdict>& verdicts, const CheckOptions& options,
                 Verdict verdict) {
  struct Row {
    std::string verdict, name, selection, measured, threshold, message;
  };
  std::vector<Row> rows;
  Row header{"# verdict", "rule", "selection", "measured [95% CI]", "threshold", "detail"};
  for (const auto& v : verdicts)
    rows.push_back({std::string(name(v.verdict)),
                    // an unnamed rule's made-up name repeats the selection column
                    v.rule.named ? v.rule.name : fmt::format("rule {}", v.rule.index),
                    describe(v.rule.selection),
                    v.measured ? format_measured(v.rule.threshold, *v.measured) : "-",
                    describe(v.rule.threshold), v.message});
  std::size_t widths[5] = {};
  const auto widen = [&](const Row& r) {
    const std::string* cells[] = {&r.verdict, &r.name, &r.selection, &r.measured, &r.threshold};
    for (int i = 0; i < 5; ++i) widths[i] = std::max(widths[i], cells[i]->size());
  };
  widen(header);
  for (const auto& r : rows) widen(r);
  fmt::print("# collbench check {} --spec {}\n", options.file, options.spec);
  fmt::print("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", header.verdict, widths[0],
             header.name, widths[1], header.selection, widths[2], header.measured, widths[3],
             header.threshold, widths[4], header.message);
  for (const auto& r : rows)
    fmt::print("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r.verdict, widths[0], r.name,
               widths[1], r.selection, widths[2], r.measured, widths[3], r.threshold, widths[4],
               r.message);
  std::size_t counts[4] = {};
  for (const auto& v : verdicts) ++counts[static_cast<int>(v.verdict)];
  fmt::print("# check: {} rules, {} pass, {} warn, {} fail, {} skip: {}\n", verdicts.size(),
             counts[0], counts[2], counts[3], counts[1], name(verdict));
}

void print_json(const std::vector<RuleVerdict>& verdicts, const CheckOptions& options,
                const Spec& spec, Verdict verdict) {
  nlohmann::ordered_json document;
  document["file"] = options.file;
  document["spec"] = options.spec;
  document["title"] = spec.title;
  document["verdict"] = name(verdict);
  document["rules"] = nlohmann::ordered_json::array();
  for (const auto& v : verdicts) document["rules"].push_back(json_of(v));
  std::cout << document.dump(2) << '\n';
}

}  // namespace

// The same label names on every record, "any" where the rule leaves a field open, so
// Prometheus series of one metric line up.
VerdictRecord check_record(const RuleVerdict& v, const std::string& spec_title) {
  const Selection& s = v.rule.selection;
  const Threshold& t = v.rule.threshold;
  VerdictRecord record;
  record.name = v.rule.name;
  record.verdict = std::string(name(v.verdict));
  record.severity = severity(v.verdict);
  record.message = fmt::format("{} {} (threshold {}): {}", name(t.metric),
                               v.measured ? format_measured(t, *v.measured) : "-", describe(t),
                               v.message);
  if (v.measured) record.value = v.measured->value;
  record.labels = {
      {"spec", spec_title},
      {"rule", std::to_string(v.rule.index)},
      {"collective", s.collective ? std::string(name(*s.collective)) : "any"},
      {"placement", s.placement.value_or("any")},
      {"nranks", nranks_label(s.nranks)},
      {"datatype", s.datatype ? std::string(name(*s.datatype)) : "any"},
      {"mode", std::string(name(s.mode))},
      {"size_bytes", sizes_label(s.sizes)},
      {"metric", std::string(name(t.metric))},
      {"unit", is_bandwidth(t.metric) ? "GB/s" : "us"},
  };
  return record;
}

void add_check_options(CLI::App& command, CheckOptions& options) {
  command.add_option("file", options.file, "result file (.h5)")->required();
  command.add_option("--spec", options.spec, "acceptance spec (TOML; examples in ci/acceptance)")
      ->required();
  add_verdict_output_options(command, options.format, options.junit, options.prom,
                             "also write JUnit XML: one test case per rule",
                             "also write a Prometheus textfile (node_exporter), atomically");
}

int check_command(const CheckOptions& options) {
  try {
    check_output_format(options.format);
    const Spec spec = parse_spec_file(options.spec);
    const ResultFile file = read_result_file(options.file, false);
    const ModelReport* models = file.models ? &*file.models : nullptr;
    const auto verdicts = judge_spec(spec, file.points, models);
    const Verdict verdict = overall(verdicts);
    if (options.format == "json")
      print_json(verdicts, options, spec, verdict);
    else
      print_table(verdicts, options, verdict);
    if (!file.complete)
      fmt::print(stderr, "collbench check: note: {} is from a run that did not finish; only its "
                         "{} finished points were judged\n",
                 options.file, file.points.size());
    std::vector<VerdictRecord> records;
    for (const auto& v : verdicts) records.push_back(check_record(v, spec.title));
    write_verdict_files(options.junit, options.prom, spec.title, kPrefix, records);
    return verdict == Verdict::fail ? kExitWrongOrFailed : kExitOk;
  } catch (const SpecError& error) {
    for (const auto& problem : error.problems) fmt::print(stderr, "collbench check: {}\n", problem);
  } catch (const UsageError& error) {
    fmt::print(stderr, "collbench check: {}\n", error.what());
  } catch (const InvalidResultFile& error) {
    fmt::print(stderr, "collbench check: {}\n", error.what());
  }
  return kExitUsage;
}

}  // namespace collbench
