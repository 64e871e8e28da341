#include "harness/check/check_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "harness/plan/point_identity.h"
#include "harness/report/json_number.h"

namespace collbench {
namespace {

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

// A threshold's bound: null where the rule leaves that side open.
nlohmann::ordered_json bound_or_null(const std::optional<double>& value) {
  return value ? finite_or_null(*value) : nlohmann::ordered_json(nullptr);
}

template <typename T>
nlohmann::ordered_json name_or_null(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(name(*value)) : nlohmann::ordered_json(nullptr);
}

template <typename T>
nlohmann::ordered_json value_or_null(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json selected_json(const Selection& s) {
  const auto open_ended = [](auto high, auto open) {
    return high == open ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(high);
  };
  return {{"backend", value_or_null(s.backend)},
          {"collective", name_or_null(s.collective)},
          {"placement", name_or_null(s.placement)},
          {"nranks_min", s.nranks.low},
          {"nranks_max", open_ended(s.nranks.high, RankRange{}.high)},
          {"datatype", name_or_null(s.datatype)},
          {"op", name_or_null(s.op)},
          {"mode", name(s.mode)},
          {"in_place", value_or_null(s.in_place)},
          {"algorithm", value_or_null(s.algorithm)},
          {"protocol", value_or_null(s.protocol)},
          {"size_min_bytes", s.sizes.low},
          {"size_max_bytes", open_ended(s.sizes.high, SizeRange{}.high)}};
}

nlohmann::ordered_json selected_json(const LinkSelection& s) {
  const auto between = s.between
                           ? nlohmann::ordered_json::array({s.between->first, s.between->second})
                           : nlohmann::ordered_json(nullptr);
  return {{"kind", name_or_null(s.kind)}, {"host", value_or_null(s.host)}, {"between", between}};
}

nlohmann::ordered_json link_json(const LinkFit& link) {
  return {{"first_host", link.first_host},   {"first_rank", link.first_rank},
          {"second_host", link.second_host}, {"second_rank", link.second_rank},
          {"kind", name(link.kind)}};
}

nlohmann::ordered_json rule_json(const Rule& r) {
  const Threshold& t = r.threshold;
  nlohmann::ordered_json rule;
  rule["index"] = r.index;
  rule["line"] = r.line;
  rule["name"] = r.name;
  rule["table"] = r.link_selection ? "link" : "rule";  // which the spec wrote: [[link]] or [[rule]]
  rule["selection"] = describe_selection(r);
  rule["selected"] =
      r.link_selection ? selected_json(*r.link_selection) : selected_json(r.selection);
  rule["metric"] = name(t.metric);
  rule["unit"] = is_bandwidth(t.metric) ? "GB/s" : "us";  // canonical: every number below
  rule["threshold"] = {{"key", t.key},
                       {"floor", bound_or_null(t.floor)},
                       {"ceiling", bound_or_null(t.ceiling)},
                       {"reference", bound_or_null(t.reference)},
                       {"warn_within", t.warn_within},
                       {"text", describe(t)}};
  rule["optional"] = r.optional;
  return rule;
}

nlohmann::ordered_json json_of(const RuleVerdict& v) {
  const Threshold& t = v.rule.threshold;
  nlohmann::ordered_json rule = rule_json(v.rule);
  rule["verdict"] = name(v.verdict);
  rule["judged"] = v.judged;
  rule["failing"] = v.failing;
  rule["warning"] = v.warning;
  if (v.measured) {
    const Measured& m = *v.measured;
    nlohmann::ordered_json measured = {{"value", finite_or_null(m.value)},
                                       {"ci_low", finite_or_null(m.low)},
                                       {"ci_high", finite_or_null(m.high)},
                                       {"where", m.where}};
    if (m.link) {
      measured.update(link_json(*m.link));
    } else if (is_fit_metric(t.metric)) {
      measured.update(key_json(m.key, false));
      measured["segment_min_bytes"] = m.segment_min_bytes;
      measured["segment_max_bytes"] = m.segment_max_bytes;
    } else {
      measured.update(key_json(m.key, false));
      measured["size_bytes"] = m.key.size_bytes;
    }
    rule["measured"] = measured;
  } else {
    rule["measured"] = nullptr;
  }
  rule["message"] = v.message;
  return rule;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

Labels selection_labels(const Selection& s) {
  return {{"collective", s.collective ? std::string(name(*s.collective)) : "any"},
          {"placement", std::string(s.placement ? name(*s.placement) : "any")},
          {"nranks", nranks_label(s.nranks)},
          {"datatype", s.datatype ? std::string(name(*s.datatype)) : "any"},
          {"mode", std::string(name(s.mode))},
          {"size_bytes", sizes_label(s.sizes)}};
}

// A link rule's own labels: it selects links, which have no collective, ranks or sizes.
Labels selection_labels(const LinkSelection& s) {
  return {{"link_kind", s.kind ? std::string(name(*s.kind)) : "any"},
          {"host", s.host.value_or("any")},
          {"between", s.between ? s.between->first + "," + s.between->second : "any"}};
}

}  // namespace

void print_check_table(std::ostream& out, const std::vector<RuleVerdict>& verdicts,
                       const CheckedFiles& files, Verdict overall) {
  struct Row {
    std::string verdict, name, selection, measured, threshold, message;
  };
  std::vector<Row> rows;
  Row header{"# verdict", "rule", "selection", "measured [95% CI]", "threshold", "detail"};
  for (const auto& v : verdicts)
    rows.push_back({std::string(name(v.verdict)),
                    // an unnamed rule's made-up name repeats the selection column
                    v.rule.named ? v.rule.name : fmt::format("rule {}", v.rule.index),
                    describe_selection(v.rule),
                    v.measured ? format_measured(v.rule.threshold, *v.measured) : "-",
                    describe(v.rule.threshold), v.message});
  std::size_t widths[5] = {};
  const auto widen = [&](const Row& r) {
    const std::string* cells[] = {&r.verdict, &r.name, &r.selection, &r.measured, &r.threshold};
    for (int i = 0; i < 5; ++i) widths[i] = std::max(widths[i], cells[i]->size());
  };
  widen(header);
  for (const auto& r : rows) widen(r);
  fmt::print(out, "# collbench check {} --spec {}\n", files.file, files.spec);
  fmt::print(out, "{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", header.verdict, widths[0],
             header.name, widths[1], header.selection, widths[2], header.measured, widths[3],
             header.threshold, widths[4], header.message);
  for (const auto& r : rows)
    fmt::print(out, "{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r.verdict, widths[0], r.name,
               widths[1], r.selection, widths[2], r.measured, widths[3], r.threshold, widths[4],
               r.message);
  std::size_t counts[4] = {};
  for (const auto& v : verdicts) ++counts[static_cast<int>(v.verdict)];
  fmt::print(out, "# check: {} rules, {} pass, {} warn, {} fail, {} skip: {}\n", verdicts.size(),
             counts[0], counts[2], counts[3], counts[1], name(overall));
}

nlohmann::ordered_json check_json(const std::vector<RuleVerdict>& verdicts,
                                  const CheckedFiles& files, const Spec& spec, Verdict overall) {
  nlohmann::ordered_json document;
  document["file"] = files.file;
  document["spec"] = files.spec;
  document["title"] = spec.title;
  document["verdict"] = name(overall);
  document["rules"] = nlohmann::ordered_json::array();
  for (const auto& v : verdicts) document["rules"].push_back(json_of(v));
  return document;
}

// The same label names on every point rule's record, and on every link rule's, "any" where the
// rule leaves a field open, so Prometheus series of one metric line up.
VerdictRecord check_record(const RuleVerdict& v, const std::string& spec_title) {
  const Threshold& t = v.rule.threshold;
  VerdictRecord record;
  record.name = v.rule.name;
  record.verdict = std::string(name(v.verdict));
  record.severity = severity(v.verdict);
  record.message = fmt::format("{} {} (threshold {}): {}", name(t.metric),
                               v.measured ? format_measured(t, *v.measured) : "-", describe(t),
                               v.message);
  // GB/s and microseconds, the spec's canonical units, to the metrics' base units.
  record.quantity = is_bandwidth(t.metric) ? Quantity::bytes_per_second : Quantity::seconds;
  if (v.measured) record.value = v.measured->value * (is_bandwidth(t.metric) ? 1e9 : 1e-6);
  record.skipped = v.verdict == Verdict::skip;
  record.labels = {{"spec", spec_title}, {"rule", std::to_string(v.rule.index)}};
  const auto selected = v.rule.link_selection ? selection_labels(*v.rule.link_selection)
                                              : selection_labels(v.rule.selection);
  record.labels.insert(record.labels.end(), selected.begin(), selected.end());
  record.labels.emplace_back("metric", name(t.metric));
  return record;
}

nlohmann::ordered_json spec_json(const Spec& spec) {
  nlohmann::ordered_json document;
  document["spec"] = spec.source;
  document["title"] = spec.title;
  document["rules"] = nlohmann::ordered_json::array();
  for (const Rule& rule : spec.rules) document["rules"].push_back(rule_json(rule));
  return document;
}

void print_spec_table(std::ostream& out, const Spec& spec) {
  fmt::print(out, "# {}: {} rules ({})\n", spec.source, spec.rules.size(), spec.title);
  for (const Rule& rule : spec.rules)
    fmt::print(out, "rule {}  {}  {}  {} {}{}\n", rule.index, rule.name, describe_selection(rule),
               name(rule.threshold.metric), describe(rule.threshold),
               rule.optional ? "  (optional)" : "");
}

}  // namespace collbench
