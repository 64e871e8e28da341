#include "rule_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "collectives/collective.h"
#include "harness/check/did_you_mean.h"
#include "harness/check/quantity.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

constexpr std::array<std::string_view, 22> kRuleKeys{
    "name",       "optional",  "warn_within", "backend",     "collective",  "placement",
    "nranks",     "datatype",  "op",          "mode",        "in_place",    "algorithm",
    "protocol",   "sizes",     "size_min",    "size_max",    "busbw_min",   "algbw_min",
    "latency_max", "alpha_max", "bandwidth_min", "reference"};
constexpr std::array kMetrics{Metric::busbw, Metric::algbw, Metric::latency, Metric::alpha,
                              Metric::bandwidth};
constexpr std::array<std::string_view, 3> kReferenceExtras{"tolerance", "lower", "upper"};

// The single-threshold keys: which metric and which side they bound.
struct BoundKey {
  std::string_view key;
  Metric metric;
  bool floor;
};
constexpr std::array kBoundKeys{
    BoundKey{"busbw_min", Metric::busbw, true},      BoundKey{"algbw_min", Metric::algbw, true},
    BoundKey{"latency_max", Metric::latency, false}, BoundKey{"alpha_max", Metric::alpha, false},
    BoundKey{"bandwidth_min", Metric::bandwidth, true},
};
// The bound keys' and reference: the one threshold a rule holds.
constexpr std::array<std::string_view, 6> kThresholdKeys{
    "busbw_min", "algbw_min", "latency_max", "alpha_max", "bandwidth_min", "reference"};

// "a, b, c": the names of every value a key accepts, for its error message.
template <typename Range>
std::string listed(const Range& values) {
  std::vector<std::string> names;
  for (const auto& value : values) names.emplace_back(name(value));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::optional<Metric> metric_named(std::string_view text) {
  for (const Metric metric : kMetrics)
    if (text == name(metric)) return metric;
  return std::nullopt;
}

WrittenQuantity parse_metric_quantity(Metric metric, std::string_view text) {
  return is_bandwidth(metric) ? parse_bandwidth(text) : parse_time(text);
}

}  // namespace

void RuleTableReader::check_keys(std::span<const std::string_view> known) {
  for (const auto& [key, node] : table_)
    if (std::find(known.begin(), known.end(), key.str()) == known.end())
      problem(node, unknown_key(key.str(), known));
}

std::optional<std::string> RuleTableReader::string_of(const toml::node& node, std::string_view key,
                                                      std::string_view example) {
  if (node.is_string()) return node.value<std::string>();
  problem(node, fmt::format("{} must be a string, e.g. {} = {}", key, key, example));
  return std::nullopt;
}

std::optional<std::string_view> RuleTableReader::one_threshold(
    std::span<const std::string_view> thresholds) {
  std::vector<std::string_view> given;
  for (const auto key : thresholds)
    if (table_.contains(key)) given.push_back(key);
  if (given.empty()) {
    problems_.add_line(rule_.line, rule_.index,
                       fmt::format("no threshold: give one of {}", fmt::join(thresholds, ", ")));
    return std::nullopt;
  }
  if (given.size() > 1) {
    problem(*table_.get(given[1]),
            fmt::format("two thresholds ({}): one rule holds one threshold; write two rules",
                        fmt::join(given, ", ")));
    return std::nullopt;
  }
  return given[0];
}

void RuleTableReader::parse_bound(std::string_view key, Metric metric, bool floor) {
  Threshold& t = rule_.threshold;
  t.key = std::string(key);
  t.metric = metric;
  const toml::node& node = *table_.get(key);
  const auto text = string_of(node, key, is_bandwidth(metric) ? "\"300 GB/s\"" : "\"25 us\"");
  if (!text) return;
  try {
    const WrittenQuantity q = parse_metric_quantity(metric, *text);
    if (!(q.value > 0)) problem(node, fmt::format("{} must be positive", key));
    (floor ? t.floor : t.ceiling) = q.value;
    t.unit = q.unit;
    t.unit_scale = q.scale;
  } catch (const std::invalid_argument& error) {
    problem(node, fmt::format("{}: {}", key, error.what()));
  }
}

void RuleTableReader::parse_common_keys(std::optional<double> default_warn) {
  if (default_warn) rule_.threshold.warn_within = *default_warn;
  if (const auto* node = table_.get("warn_within")) {
    if (const auto text = string_of(*node, "warn_within", "\"5%\"")) {
      try {
        rule_.threshold.warn_within = parse_fraction(*text, false);
        if (rule_.threshold.warn_within < 0 || rule_.threshold.warn_within >= 1)
          problem(*node, "warn_within must be at least 0% and below 100%");
      } catch (const std::invalid_argument& error) {
        problem(*node, fmt::format("warn_within: {}", error.what()));
      }
    }
  }
  if (const auto* node = table_.get("optional")) {
    if (node->is_boolean())
      rule_.optional = node->value<bool>().value_or(false);
    else
      problem(*node, "optional must be true or false");
  }
  if (const auto* node = table_.get("name"))
    if (const auto text = string_of(*node, "name", "\"allreduce-8gpu\"")) {
      rule_.name = *text;
      rule_.named = !text->empty();
    }
}

namespace {

class RuleParser : RuleTableReader {
 public:
  using RuleTableReader::RuleTableReader;

  void parse(std::optional<double> default_warn) {
    check_keys(kRuleKeys);
    parse_selection();
    parse_threshold();
    parse_common_keys(default_warn);
  }

 private:
  void parse_selection() {
    Selection& s = rule_.selection;
    s.backend = named<std::string>(
        "backend",
        [](const std::string& text) -> std::optional<std::string> {
          if (text == "mpi" || text == "nccl" || text == "ucx") return text;
          return std::nullopt;
        },
        "mpi, nccl, ucx");
    s.collective = named<CollectiveKind>(
        "collective", [](const std::string& t) { return parse_collective(t); },
        listed(all_collectives()));
    s.placement = named<Placement>(
        "placement", [](const std::string& t) { return parse_placement(t); },
        listed(all_placements()));
    s.datatype = named<DataType>(
        "datatype", [](const std::string& t) { return parse_datatype(t); }, listed(all_datatypes()));
    s.op = named<ReduceOp>("op", [](const std::string& t) { return parse_reduce_op(t); },
                           listed(all_reduce_ops()));
    if (s.op && s.collective && !uses_reduce_op(*s.collective))
      problem(*table_.get("op"), fmt::format("op selects nothing: {} reduces nothing",
                                             name(*s.collective)));
    for (auto [key, field] : {std::pair{"algorithm", &s.algorithm}, {"protocol", &s.protocol}})
      if (const auto* node = table_.get(key)) *field = string_of(*node, key, "\"Ring\"");
    if (const auto* node = table_.get("in_place")) {
      if (node->is_boolean())
        s.in_place = node->value<bool>();
      else
        problem(*node, "in_place must be true or false");
    }
    parse_nranks();
    parse_sizes();
  }

  void parse_nranks() {
    const auto* node = table_.get("nranks");
    if (!node) return;
    RankRange& r = rule_.selection.nranks;
    if (node->is_integer()) {
      r.low = r.high = static_cast<int>(node->value<std::int64_t>().value_or(0));
    } else if (const auto text = string_of(*node, "nranks", "8 or \"2-8\"")) {
      const auto dash = text->find('-');
      const auto number = [&](std::string_view part, int fallback) {
        part = trimmed(part);
        if (part.empty()) return fallback;
        int value = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (error != std::errc() || end != part.data() + part.size()) throw std::invalid_argument("");
        return value;
      };
      try {
        if (dash == std::string::npos) {
          r.low = r.high = number(*text, 0);
        } else {
          r.low = number(std::string_view(*text).substr(0, dash), 1);
          r.high = number(std::string_view(*text).substr(dash + 1), std::numeric_limits<int>::max());
        }
      } catch (const std::invalid_argument&) {
        problem(*node, fmt::format("nranks '{}' is not a rank count or range (8, \"2-8\", \"16-\")",
                                   *text));
        r = {};
        return;
      }
    } else {
      return;
    }
    if (r.low < 1 || r.high < r.low) {
      problem(*node, "nranks must be at least 1 and its range must not be empty");
      r = {};
    }
  }

  std::optional<std::size_t> size_of(const toml::node& node, std::string_view key) {
    std::string text;
    if (node.is_integer())
      text = std::to_string(node.value<std::int64_t>().value_or(-1));
    else if (auto s = string_of(node, key, "\"1G\""))
      text = *s;
    else
      return std::nullopt;
    try {
      return parse_size(trimmed(text));
    } catch (const std::invalid_argument& error) {
      problem(node, fmt::format("{}: {}", key, error.what()));
      return std::nullopt;
    }
  }

  void parse_sizes() {
    SizeRange& r = rule_.selection.sizes;
    const auto* sizes = table_.get("sizes");
    const auto* low = table_.get("size_min");
    const auto* high = table_.get("size_max");
    if (sizes && (low || high)) {
      problem(*sizes, "give either sizes or size_min/size_max, not both");
      return;
    }
    if (sizes) {
      const auto text = string_of(*sizes, "sizes", "\"1G-8G\"");
      if (!text) return;
      const auto dash = text->find('-');
      const auto part = [&](std::string_view p) -> std::optional<std::size_t> {
        p = trimmed(p);
        if (p.empty()) return std::nullopt;
        return parse_size(p);
      };
      try {
        if (dash == std::string::npos) {
          r.low = r.high = parse_size(trimmed(*text));
        } else {
          r.low = part(std::string_view(*text).substr(0, dash)).value_or(0);
          r.high = part(std::string_view(*text).substr(dash + 1))
                       .value_or(std::numeric_limits<std::size_t>::max());
        }
      } catch (const std::invalid_argument& error) {
        problem(*sizes, fmt::format("sizes: {} (write \"1G-8G\", \"64M\" or \"1G-\")", error.what()));
        r = {};
        return;
      }
    }
    if (low)
      if (auto v = size_of(*low, "size_min")) r.low = *v;
    if (high)
      if (auto v = size_of(*high, "size_max")) r.high = *v;
    if (r.high < r.low) {
      problem(sizes ? *sizes : (high ? *high : *low), "the size range is empty (maximum below minimum)");
      r = {};
    }
  }

  void parse_threshold() {
    const auto key = one_threshold(kThresholdKeys);
    if (!key) return;
    if (*key == "reference") {
      rule_.threshold.key = std::string(*key);
      parse_reference(*table_.get(*key));
    } else {
      const auto bound = *std::find_if(kBoundKeys.begin(), kBoundKeys.end(),
                                       [&](const BoundKey& b) { return b.key == *key; });
      parse_bound(bound.key, bound.metric, bound.floor);
    }
    default_mode();
  }

  // ReFrame's reference: {busbw = "360 GB/s", tolerance = "-10%"} or lower/upper fractions.
  void parse_reference(const toml::node& node) {
    Threshold& t = rule_.threshold;
    const auto* table = node.as_table();
    if (!table) {
      problem(node, "reference must be a table, e.g. reference = {busbw = \"360 GB/s\", "
                    "tolerance = \"-10%\"}");
      return;
    }
    const toml::node* value_node = nullptr;
    for (const auto& [key, value] : *table) {
      const std::string_view k = key.str();
      if (const auto metric = metric_named(k)) {
        if (value_node) {
          problem(value, "reference names two quantities; one per rule");
          return;
        }
        t.metric = *metric;
        value_node = &value;
      } else if (std::find(kReferenceExtras.begin(), kReferenceExtras.end(), k) ==
                 kReferenceExtras.end()) {
        std::vector<std::string_view> known;
        for (const Metric metric : kMetrics) known.push_back(name(metric));
        known.insert(known.end(), kReferenceExtras.begin(), kReferenceExtras.end());
        problem(value, "reference: " + unknown_key(k, known));
      }
    }
    if (!value_node) {
      problem(node, "reference needs a value: busbw, algbw, latency, alpha or bandwidth");
      return;
    }
    const auto text = string_of(*value_node, "reference value", "\"360 GB/s\"");
    if (!text) return;
    double reference = 0;
    try {
      const WrittenQuantity q = parse_metric_quantity(t.metric, *text);
      reference = q.value;
      t.unit = q.unit;
      t.unit_scale = q.scale;
    } catch (const std::invalid_argument& error) {
      problem(*value_node, fmt::format("reference: {}", error.what()));
      return;
    }
    if (!(reference > 0)) {
      problem(*value_node, "the reference must be positive");
      return;
    }
    t.reference = reference;
    std::optional<double> lower, upper;
    const auto fraction_at = [&](const char* key) -> std::optional<double> {
      const auto* n = table->get(key);
      if (!n) return std::nullopt;
      const auto s = string_of(*n, key, "\"-10%\"");
      if (!s) return std::nullopt;
      try {
        return parse_fraction(*s, std::string_view(key) != "tolerance");
      } catch (const std::invalid_argument& error) {
        problem(*n, fmt::format("reference {}: {}", key, error.what()));
        return std::nullopt;
      }
    };
    if (const auto* n = table->get("tolerance")) {
      if (table->contains("lower") || table->contains("upper")) {
        problem(*n, "reference: give tolerance or lower/upper, not both");
        return;
      }
      const auto s = n->value<std::string>().value_or("");
      const auto f = fraction_at("tolerance");
      if (!f) return;
      const char sign = trimmed(s).empty() ? ' ' : trimmed(s).front();
      if (sign == '-') lower = *f;                // "-10%": a floor only
      else if (sign == '+') upper = *f;           // "+10%": a ceiling only
      else lower = -std::abs(*f), upper = std::abs(*f);  // "10%": both sides
    } else {
      lower = fraction_at("lower");
      upper = fraction_at("upper");
      if (!table->contains("lower") && !table->contains("upper")) {
        problem(node, "reference needs tolerance = \"-10%\" (or lower/upper fractions)");
        return;
      }
    }
    if (lower && (*lower > 0 || *lower <= -1))
      problem(node, "reference: the lower tolerance must be between -100% and 0%");
    if (upper && *upper < 0) problem(node, "reference: the upper tolerance must be 0% or more");
    if (lower) t.floor = reference * (1 + *lower);
    if (upper) t.ceiling = reference * (1 + *upper);
  }

  // Latency and the fits are latency-mode quantities, bus bandwidth a bandwidth-mode one
  // (nccl-tests' number); `mode` overrides.
  void default_mode() {
    Mode& mode = rule_.selection.mode;
    mode = rule_.threshold.metric == Metric::busbw || rule_.threshold.metric == Metric::algbw
               ? Mode::bandwidth
               : Mode::latency;
    if (const auto* node = table_.get("mode")) {
      if (const auto text = string_of(*node, "mode", "\"latency\"")) {
        if (const auto parsed = parse_mode(*text))
          mode = *parsed;
        else
          problem(*node, fmt::format("mode '{}' selects nothing: expected latency or bandwidth", *text));
      }
    }
  }

};

}  // namespace

void parse_rule(const toml::table& table, Rule& rule, Problems& problems,
                std::optional<double> default_warn) {
  RuleParser(table, rule, problems).parse(default_warn);
}

}  // namespace collbench
