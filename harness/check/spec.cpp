#include "spec.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "benches/collectives/collective.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

struct UnitScale {
  std::string_view unit;
  double scale;  // canonical units per one of these
};

// Bandwidths in GB/s (10^9 B/s, as busbw is reported). Bits are spelled "bit" because
// "Gb/s" versus "GB/s" is the classic factor-8 mistake in acceptance specs.
constexpr std::array kBandwidthUnits{
    UnitScale{"TB/s", 1e3},          UnitScale{"GB/s", 1},           UnitScale{"MB/s", 1e-3},
    UnitScale{"kB/s", 1e-6},         UnitScale{"KB/s", 1e-6},        UnitScale{"B/s", 1e-9},
    UnitScale{"TiB/s", 1099.511627776}, UnitScale{"GiB/s", 1.073741824},
    UnitScale{"MiB/s", 1.048576e-3}, UnitScale{"Tbit/s", 125},       UnitScale{"Gbit/s", 0.125},
    UnitScale{"Mbit/s", 1.25e-4},
};
constexpr std::array kTimeUnits{
    UnitScale{"ns", 1e-3}, UnitScale{"us", 1}, UnitScale{"µs", 1}, UnitScale{"ms", 1e3},
    UnitScale{"s", 1e6},
};

template <std::size_t N>
std::string unit_list(const std::array<UnitScale, N>& units) {
  std::vector<std::string_view> names;
  for (const auto& u : units) names.push_back(u.unit);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// A number and what follows it. Throws std::invalid_argument when there is no number.
std::pair<double, std::string_view> leading_number(std::string_view text) {
  text = trimmed(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // from_chars refuses '+'
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !std::isfinite(value))
    throw std::invalid_argument(fmt::format("'{}' does not start with a number", text));
  return {value, trimmed(text.substr(end - text.data()))};
}

template <std::size_t N>
Quantity parse_quantity(std::string_view text, const std::array<UnitScale, N>& units,
                        std::string_view what, std::string_view example) {
  const auto [value, unit] = leading_number(text);
  if (unit.empty())
    throw std::invalid_argument(fmt::format("'{}' needs a unit: a {} such as \"{}\" ({})", text,
                                            what, example, unit_list(units)));
  for (const auto& u : units)
    if (unit == u.unit) return {value * u.scale, std::string(u.unit), u.scale};
  std::string hint;
  if (unit == "Gb/s" || unit == "Mb/s" || unit == "Gbps" || unit == "GBps")
    hint = " (write GB/s for bytes or Gbit/s for bits)";
  throw std::invalid_argument(fmt::format("'{}' has unknown unit '{}' for a {}{}; expected one of {}",
                                          text, unit, what, hint, unit_list(units)));
}

// Levenshtein distance, for "did you mean" on unknown keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string unknown_key(std::string_view key, std::span<const std::string_view> known) {
  std::string_view best;
  std::size_t best_distance = 3;  // suggest only near misses
  for (const auto candidate : known) {
    const auto distance = edit_distance(key, candidate);
    if (distance < best_distance) best = candidate, best_distance = distance;
  }
  return best.empty() ? fmt::format("unknown key '{}'", key)
                      : fmt::format("unknown key '{}' (did you mean '{}'?)", key, best);
}

constexpr std::array<std::string_view, 22> kRuleKeys{
    "name",       "optional",  "warn_within", "backend",     "collective",  "placement",
    "nranks",     "datatype",  "op",          "mode",        "in_place",    "algorithm",
    "protocol",   "sizes",     "size_min",    "size_max",    "busbw_min",   "algbw_min",
    "latency_max", "alpha_max", "bandwidth_min", "reference"};
constexpr std::array<std::string_view, 3> kTopKeys{"title", "warn_within", "rule"};
constexpr std::array<std::string_view, 5> kMetricNames{"busbw", "algbw", "latency", "alpha",
                                                       "bandwidth"};
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

std::optional<Metric> metric_named(std::string_view text) {
  for (std::size_t i = 0; i < kMetricNames.size(); ++i)
    if (text == kMetricNames[i]) return static_cast<Metric>(i);
  return std::nullopt;
}

Quantity parse_metric_quantity(Metric metric, std::string_view text) {
  return is_bandwidth(metric) ? parse_bandwidth(text) : parse_time(text);
}

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

class RuleParser {
 public:
  RuleParser(const toml::table& table, Rule& rule, Problems& problems)
      : table_(table), rule_(rule), problems_(problems) {}

  void parse(std::optional<double> default_warn) {
    for (const auto& [key, node] : table_) {
      const std::string_view k = key.str();
      if (std::find(kRuleKeys.begin(), kRuleKeys.end(), k) == kRuleKeys.end())
        problem(node, unknown_key(k, kRuleKeys));
    }
    parse_selection();
    parse_threshold();
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

 private:
  void problem(const toml::node& at, const std::string& what) {
    problems_.add(at, rule_.index, what);
  }

  std::optional<std::string> string_of(const toml::node& node, std::string_view key,
                                       std::string_view example) {
    if (node.is_string()) return node.value<std::string>();
    problem(node, fmt::format("{} must be a string, e.g. {} = {}", key, key, example));
    return std::nullopt;
  }

  // A string key whose value must be one of a closed set (as parsed by `parse`).
  template <typename T, typename Parse>
  std::optional<T> named(std::string_view key, Parse parse, std::string_view known) {
    const auto* node = table_.get(key);
    if (!node) return std::nullopt;
    const auto text = string_of(*node, key, fmt::format("\"{}\"", known.substr(0, known.find(','))));
    if (!text) return std::nullopt;
    if (auto value = parse(*text)) return value;
    problem(*node, fmt::format("{} '{}' selects nothing: expected one of {}", key, *text, known));
    return std::nullopt;
  }

  void parse_selection() {
    Selection& s = rule_.selection;
    const auto one_of = [](std::initializer_list<std::string_view> names) {
      return [names](const std::string& text) -> std::optional<std::string> {
        for (auto n : names)
          if (text == n) return text;
        return std::nullopt;
      };
    };
    s.backend = named<std::string>("backend", one_of({"mpi", "nccl", "ucx"}), "mpi, nccl, ucx");
    s.collective = named<CollectiveKind>(
        "collective", [](const std::string& t) { return parse_collective(t); },
        "allreduce, allgather, reduce_scatter");
    s.placement = named<std::string>("placement",
                                     one_of({"world", "intra", "inter", "packed", "spread"}),
                                     "world, intra, inter, packed, spread");
    s.datatype = named<DataType>(
        "datatype", [](const std::string& t) { return parse_datatype(t); },
        "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2");
    s.op = named<ReduceOp>("op", [](const std::string& t) { return parse_reduce_op(t); },
                           "sum, prod, min, max, avg");
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
    std::vector<std::string_view> given;
    for (const auto& b : kBoundKeys)
      if (table_.contains(b.key)) given.push_back(b.key);
    if (table_.contains("reference")) given.push_back("reference");
    if (given.empty()) {
      problems_.add_line(rule_.line, rule_.index,
                         "no threshold: give one of busbw_min, algbw_min, latency_max, alpha_max, "
                         "bandwidth_min, reference");
      return;
    }
    if (given.size() > 1) {
      problem(*table_.get(given[1]),
              fmt::format("two thresholds ({}): one rule holds one threshold; write two rules",
                          fmt::join(given, ", ")));
      return;
    }
    Threshold& t = rule_.threshold;
    t.key = std::string(given[0]);
    const toml::node& node = *table_.get(given[0]);
    if (t.key == "reference") {
      parse_reference(node);
    } else {
      const auto bound = *std::find_if(kBoundKeys.begin(), kBoundKeys.end(),
                                       [&](const BoundKey& b) { return b.key == t.key; });
      t.metric = bound.metric;
      const auto text = string_of(node, t.key, is_bandwidth(bound.metric) ? "\"300 GB/s\"" : "\"25 us\"");
      if (!text) return;
      try {
        const Quantity q = parse_metric_quantity(bound.metric, *text);
        if (!(q.value > 0)) problem(node, fmt::format("{} must be positive", t.key));
        (bound.floor ? t.floor : t.ceiling) = q.value;
        t.unit = q.unit;
        t.unit_scale = q.scale;
      } catch (const std::invalid_argument& error) {
        problem(node, fmt::format("{}: {}", t.key, error.what()));
      }
    }
    default_mode(node);
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
        std::vector<std::string_view> known(kMetricNames.begin(), kMetricNames.end());
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
      const Quantity q = parse_metric_quantity(t.metric, *text);
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
  void default_mode(const toml::node&) {
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

  const toml::table& table_;
  Rule& rule_;
  Problems& problems_;
};

std::string default_name(const Rule& rule) {
  return fmt::format("{} {}", describe(rule.selection),
                     rule.threshold.key == "reference"
                         ? fmt::format("{} reference", name(rule.threshold.metric))
                         : rule.threshold.key);
}

// Two rules of one kind on the same selection must not share sizes: the spec would hold
// the same points to two thresholds, and one of them is a mistake.
void check_overlaps(const std::vector<Rule>& rules, Problems& problems) {
  for (std::size_t j = 0; j < rules.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const Rule& a = rules[i];
      const Rule& b = rules[j];
      if (a.threshold.key != b.threshold.key || a.threshold.metric != b.threshold.metric) continue;
      if (!a.selection.same_except_sizes(b.selection)) continue;
      if (!a.selection.sizes.overlaps(b.selection.sizes)) continue;
      problems.add_line(b.line, b.index,
                        fmt::format("overlaps rule {} (line {}): same selection and threshold "
                                    "kind ({}), and their size ranges overlap",
                                    a.index, a.line, a.threshold.key));
    }
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
    : std::runtime_error(list.empty() ? "bad spec" : list.front()), problems(std::move(list)) {}

Quantity parse_bandwidth(std::string_view text) {
  return parse_quantity(text, kBandwidthUnits, "bandwidth", "300 GB/s");
}

Quantity parse_time(std::string_view text) {
  return parse_quantity(text, kTimeUnits, "time", "25 us");
}

double parse_fraction(std::string_view text, bool signed_required) {
  const auto t = trimmed(text);
  const auto [value, unit] = leading_number(t);
  if (unit != "%")
    throw std::invalid_argument(fmt::format("'{}' must be a percentage such as \"5%\"", text));
  if (signed_required && t.front() != '+' && t.front() != '-')
    throw std::invalid_argument(fmt::format("'{}' needs a sign (\"-10%\" or \"+10%\")", text));
  return value / 100;
}

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
  const auto* rules = document.get("rule");
  if (!rules || !rules->is_array_of_tables() || rules->as_array()->empty()) {
    problems.add_line(rules ? static_cast<int>(rules->source().begin.line) : 0, 0,
                      "no rules: write one or more [[rule]] tables");
    throw SpecError(problems.take());
  }
  int index = 0;
  for (const auto& element : *rules->as_array()) {
    const auto& table = *element.as_table();
    Rule rule;
    rule.index = ++index;
    rule.line = static_cast<int>(table.source().begin.line);
    RuleParser(table, rule, problems).parse(default_warn);
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
  if (s.placement) parts.push_back(*s.placement);
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
