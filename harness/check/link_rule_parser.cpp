// [[link]] tables: rules over the links a `collbench links` file models, read as [[rule]]
// tables are (rule_parser.h) so that both word their problems alike.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "harness/check/rule_parser.h"

namespace collbench {
namespace {

constexpr std::array<std::string_view, 8> kLinkKeys{
    "name", "optional", "warn_within", "kind", "host", "between", "latency_max", "bandwidth_min"};
constexpr std::array<std::string_view, 2> kLinkThresholds{"latency_max", "bandwidth_min"};

class LinkRuleParser : RuleTableReader {
 public:
  using RuleTableReader::RuleTableReader;

  void parse(std::optional<double> default_warn) {
    check_keys(kLinkKeys);
    LinkSelection& selection = rule_.link_selection.emplace();
    selection.kind = named<LinkKind>("kind", parse_link_kind, "inter, intra");
    selection.host = host();
    selection.between = between();
    if (selection.host && selection.between)
      problem(*table_.get("between"),
              "give host or between, not both: between names one link, host every link of a host");
    // A link's model is its alpha and its bandwidth: the latency a link rule bounds is alpha.
    if (const auto key = one_threshold(kLinkThresholds))
      parse_bound(*key, *key == "latency_max" ? Metric::alpha : Metric::bandwidth,
                  *key == "bandwidth_min");
    parse_common_keys(default_warn);
  }

 private:
  std::optional<std::string> host() {
    const auto* node = table_.get("host");
    if (!node) return std::nullopt;
    auto text = string_of(*node, "host", "\"node01\"");
    if (text && text->empty()) {
      problem(*node, "host is empty: name a host as `collbench links` names it");
      return std::nullopt;
    }
    return text;
  }

  std::optional<std::pair<std::string, std::string>> between() {
    const auto* node = table_.get("between");
    if (!node) return std::nullopt;
    const auto* hosts = node->as_array();
    const auto host_at = [&](std::size_t i) {
      return (*hosts)[i].value<std::string>().value_or("");
    };
    if (!hosts || hosts->size() != 2 || host_at(0).empty() || host_at(1).empty()) {
      problem(*node, "between must name two hosts, e.g. between = [\"node01\", \"node02\"]");
      return std::nullopt;
    }
    return std::pair{host_at(0), host_at(1)};
  }
};

}  // namespace

void parse_link_rule(const toml::table& table, Rule& rule, Problems& problems,
                     std::optional<double> default_warn) {
  LinkRuleParser(table, rule, problems).parse(default_warn);
}

}  // namespace collbench
