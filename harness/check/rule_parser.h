#pragma once
// Reading an acceptance spec's [[rule]] and [[link]] tables, for spec.cpp. Private to
// harness/check: with spec.cpp, the only place that sees toml++.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "harness/check/spec.h"

namespace collbench {

// Collects problems with their lines; parsing goes on after one so that a run lists them all.
class Problems {
 public:
  Problems(std::string source) : source_(std::move(source)) {}
  void add(const toml::node& at, int rule, const std::string& what) {
    add_line(static_cast<int>(at.source().begin.line), rule, what);
  }
  void add_line(int line, int rule, const std::string& what) {
    std::string where = line > 0 ? fmt::format("{}:{}", source_, line) : source_;
    list_.push_back(rule > 0 ? fmt::format("{}: rule {}: {}", where, rule, what)
                             : fmt::format("{}: {}", where, what));
  }
  bool empty() const { return list_.empty(); }
  std::vector<std::string> take() { return std::move(list_); }

 private:
  std::string source_;
  std::vector<std::string> list_;
};

// What [[rule]] and [[link]] tables read alike, so both word their problems the same way: typed
// values with an example in the message, the single threshold, and the keys every rule has.
class RuleTableReader {
 public:
  RuleTableReader(const toml::table& table, Rule& rule, Problems& problems)
      : table_(table), rule_(rule), problems_(problems) {}

 protected:
  void problem(const toml::node& at, const std::string& what) {
    problems_.add(at, rule_.index, what);
  }
  // Every key not in `known`, with a did-you-mean.
  void check_keys(std::span<const std::string_view> known);
  std::optional<std::string> string_of(const toml::node& node, std::string_view key,
                                       std::string_view example);

  // A string key whose value must be one of a closed set (as parsed by `parse`).
  template <typename T, typename Parse>
  std::optional<T> named(std::string_view key, Parse parse, std::string_view known) {
    const auto* node = table_.get(key);
    if (!node) return std::nullopt;
    const auto text =
        string_of(*node, key, fmt::format("\"{}\"", known.substr(0, known.find(','))));
    if (!text) return std::nullopt;
    if (auto value = parse(*text)) return value;
    problem(*node, fmt::format("{} '{}' selects nothing: expected one of {}", key, *text, known));
    return std::nullopt;
  }

  // The one key of `thresholds` the table gives, or none with a problem (none given, or two).
  std::optional<std::string_view> one_threshold(std::span<const std::string_view> thresholds);
  // A floor (or a ceiling) of `metric` at `key`, a quantity with its unit.
  void parse_bound(std::string_view key, Metric metric, bool floor);
  // name, optional and warn_within; `default_warn` is the spec's, which the rule's overrides.
  void parse_common_keys(std::optional<double> default_warn);

  const toml::table& table_;
  Rule& rule_;
  Problems& problems_;
};

// Fill `rule` (its index and line already set) from `table`, adding every problem found.
// `default_warn` is the spec's top-level warn_within, which the rule's own overrides.
void parse_rule(const toml::table& table, Rule& rule, Problems& problems,
                std::optional<double> default_warn);
void parse_link_rule(const toml::table& table, Rule& rule, Problems& problems,
                     std::optional<double> default_warn);

}  // namespace collbench
