#include "spec.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "harness/check/did_you_mean.h"
#include "harness/check/quantity.h"
#include "harness/check/rule_parser.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

constexpr std::array<std::string_view, 4> kTopKeys{"title", "warn_within", "rule", "link"};
constexpr std::array<std::string_view, 5> kMetricNames{"busbw", "algbw", "latency", "alpha",
                                                       "bandwidth"};

std::string default_name(const Rule& rule) {
  return fmt::format("{} {}", describe_selection(rule),
                     rule.threshold.key == "reference"
                         ? fmt::format("{} reference", name(rule.threshold.metric))
                         : rule.threshold.key);
}

// Two rules of one kind on the same selection must not share sizes (or, for links, be the
// same): the spec would hold the same values to two thresholds, and one of them is a mistake.
void check_overlaps(const std::vector<Rule>& rules, Problems& problems) {
  for (std::size_t j = 0; j < rules.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const Rule& a = rules[i];
      const Rule& b = rules[j];
      if (a.threshold.key != b.threshold.key || a.threshold.metric != b.threshold.metric) continue;
      if (a.link_selection || b.link_selection) {
        if (a.link_selection == b.link_selection)
          problems.add_line(b.line, b.index,
                            fmt::format("overlaps rule {} (line {}): the same links and threshold "
                                        "kind ({})",
                                        a.index, a.line, a.threshold.key));
        continue;
      }
      if (!a.selection.same_except_sizes(b.selection)) continue;
      if (!a.selection.sizes.overlaps(b.selection.sizes)) continue;
      problems.add_line(b.line, b.index,
                        fmt::format("overlaps rule {} (line {}): same selection and threshold "
                                    "kind ({}), and their size ranges overlap",
                                    a.index, a.line, a.threshold.key));
    }
}

// The spec's [[rule]] and [[link]] tables in the file's order, so that rule N is the N-th table
// a reader counts; true marks a [[link]] table.
std::vector<std::pair<const toml::table*, bool>> rule_tables(const toml::table& document,
                                                             Problems& problems) {
  std::vector<std::pair<const toml::table*, bool>> tables;
  for (const auto& [key, is_link] : {std::pair{"rule", false}, {"link", true}}) {
    const auto* node = document.get(key);
    if (!node) continue;
    if (!node->is_array_of_tables()) {
      problems.add(*node, 0, fmt::format("{} must be tables: write [[{}]]", key, key));
      continue;
    }
    for (const auto& element : *node->as_array()) tables.emplace_back(element.as_table(), is_link);
  }
  std::stable_sort(tables.begin(), tables.end(), [](const auto& a, const auto& b) {
    return a.first->source().begin.line < b.first->source().begin.line;
  });
  return tables;
}

void check_names(std::vector<Rule>& rules, Problems& problems) {
  for (std::size_t j = 0; j < rules.size(); ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (rules[i].name == rules[j].name)
        problems.add_line(rules[j].line, rules[j].index,
                          fmt::format("name '{}' is taken by rule {} (line {}); names must be "
                                      "unique (they name JUnit test cases)",
                                      rules[j].name, rules[i].index, rules[i].line));
}

}  // namespace

std::string_view name(Metric metric) { return kMetricNames[static_cast<std::size_t>(metric)]; }
bool is_fit_metric(Metric metric) { return metric == Metric::alpha || metric == Metric::bandwidth; }
bool is_bandwidth(Metric metric) { return metric != Metric::latency && metric != Metric::alpha; }

bool Selection::same_except_sizes(const Selection& o) const {
  return backend == o.backend && collective == o.collective && placement == o.placement &&
         nranks.low == o.nranks.low && nranks.high == o.nranks.high && datatype == o.datatype &&
         op == o.op && mode == o.mode && in_place == o.in_place && algorithm == o.algorithm &&
         protocol == o.protocol;
}

SpecError::SpecError(std::vector<std::string> list)
    : UsageError(list.empty() ? "bad spec" : fmt::format("{}", fmt::join(list, "\n"))),
      problems(std::move(list)) {}

Spec parse_spec(std::string_view text, std::string_view source) {
  Problems problems{std::string(source)};
  toml::table document;
  try {
    document = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    problems.add_line(static_cast<int>(error.source().begin.line), 0,
                      fmt::format("not valid TOML: {}", error.description()));
    throw SpecError(problems.take());
  }
  Spec spec;
  spec.source = std::string(source);
  spec.title = std::filesystem::path(std::string(source)).stem().string();
  for (const auto& [key, node] : document)
    if (std::find(kTopKeys.begin(), kTopKeys.end(), key.str()) == kTopKeys.end())
      problems.add(node, 0, unknown_key(key.str(), kTopKeys) + " at the top level");
  if (const auto* node = document.get("title")) {
    if (node->is_string())
      spec.title = *node->value<std::string>();
    else
      problems.add(*node, 0, "title must be a string");
  }
  std::optional<double> default_warn;
  if (const auto* node = document.get("warn_within")) {
    try {
      if (!node->is_string()) throw std::invalid_argument("must be a string such as \"5%\"");
      default_warn = parse_fraction(*node->value<std::string>(), false);
      if (*default_warn < 0 || *default_warn >= 1)
        throw std::invalid_argument("must be at least 0% and below 100%");
    } catch (const std::invalid_argument& error) {
      problems.add(*node, 0, fmt::format("warn_within: {}", error.what()));
      default_warn.reset();
    }
  }
  const auto tables = rule_tables(document, problems);
  if (tables.empty()) {
    problems.add_line(0, 0, "no rules: write one or more [[rule]] or [[link]] tables");
    throw SpecError(problems.take());
  }
  int index = 0;
  for (const auto& [table, is_link] : tables) {
    Rule rule;
    rule.index = ++index;
    rule.line = static_cast<int>(table->source().begin.line);
    (is_link ? parse_link_rule : parse_rule)(*table, rule, problems, default_warn);
    if (rule.name.empty()) rule.name = default_name(rule);
    spec.rules.push_back(std::move(rule));
  }
  if (problems.empty()) check_overlaps(spec.rules, problems);
  if (problems.empty()) check_names(spec.rules, problems);
  if (!problems.empty()) throw SpecError(problems.take());
  return spec;
}

Spec parse_spec_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError({fmt::format("{}: cannot read the spec", path)});
  std::stringstream text;
  text << in.rdbuf();
  return parse_spec(text.str(), path);
}

std::string describe(const Selection& s) {
  std::vector<std::string> parts;
  if (s.backend) parts.push_back(*s.backend);
  parts.push_back(s.collective ? std::string(name(*s.collective)) : "any-collective");
  if (s.placement) parts.emplace_back(name(*s.placement));
  if (!s.nranks.any()) {
    if (s.nranks.low == s.nranks.high)
      parts.push_back(fmt::format("{} ranks", s.nranks.low));
    else if (s.nranks.high == std::numeric_limits<int>::max())
      parts.push_back(fmt::format("{}+ ranks", s.nranks.low));
    else
      parts.push_back(fmt::format("{}-{} ranks", s.nranks.low, s.nranks.high));
  }
  if (s.datatype) parts.emplace_back(name(*s.datatype));
  if (s.op) parts.emplace_back(name(*s.op));
  if (s.algorithm) parts.push_back(*s.algorithm);
  if (s.protocol) parts.push_back(*s.protocol);
  if (s.in_place) parts.push_back(*s.in_place ? "in-place" : "out-of-place");
  parts.emplace_back(name(s.mode));
  if (!s.sizes.any()) {
    const bool open = s.sizes.high == std::numeric_limits<std::size_t>::max();
    if (s.sizes.low == s.sizes.high)
      parts.push_back(format_size(s.sizes.low));
    else if (open)
      parts.push_back(fmt::format(">={}", format_size(s.sizes.low)));
    else
      parts.push_back(fmt::format("{}-{}", format_size(s.sizes.low), format_size(s.sizes.high)));
  }
  std::string text = fmt::format("{}", fmt::join(parts, " "));
  return text;
}

std::string describe(const LinkSelection& s) {
  std::string text = s.kind ? fmt::format("{} ", name(*s.kind)) : "";
  if (s.between) return text + fmt::format("link {} <-> {}", s.between->first, s.between->second);
  text += "links";
  if (s.host) text += " of " + *s.host;
  return text;
}

std::string describe_selection(const Rule& rule) {
  return rule.link_selection ? describe(*rule.link_selection) : describe(rule.selection);
}

std::string describe(const Threshold& t) {
  const auto shown = [&](double canonical) {
    return fmt::format("{:.4g} {}", canonical / t.unit_scale, t.unit);
  };
  std::string text;
  if (t.floor && t.ceiling)
    text = fmt::format("{}..{}", shown(*t.floor), shown(*t.ceiling));
  else if (t.floor)
    text = ">= " + shown(*t.floor);
  else if (t.ceiling)
    text = "<= " + shown(*t.ceiling);
  if (t.reference) text += fmt::format(" (ref {})", shown(*t.reference));
  if (t.warn_within > 0) text += fmt::format(" warn {:g}%", t.warn_within * 100);
  return text;
}

}  // namespace collbench
