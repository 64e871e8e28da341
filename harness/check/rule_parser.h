#pragma once
// Reading an acceptance spec's [[rule]] tables, for spec.cpp. Private to harness/check: it is
// the one other place that sees toml++.
#include <optional>
#include <string>
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

// Fills `rule` (its index and line already set) from `table`, adding every problem found.
// `default_warn` is the spec's top-level warn_within, which the rule's own overrides.
void parse_rule(const toml::table& table, Rule& rule, Problems& problems,
                std::optional<double> default_warn);

}  // namespace collbench
