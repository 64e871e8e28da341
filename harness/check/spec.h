#pragma once
// An acceptance spec (`collbench check --spec SPEC.toml`): rules that each select points (or
// fitted curves) of a result file, or links of a `collbench links` file ([[link]] tables), and
// hold one measured quantity against one threshold.
// Parsing validates everything the spec can say about itself, so a typo fails before any
// result file is judged: unknown keys, missing or wrong units, names that select nothing, two
// thresholds in a rule, overlapping rules. toml++ stays inside spec.cpp and rule_parser.cpp;
// the units of values are read by quantity.h.
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/collective_kind.h"
#include "collectives/datatype.h"
#include "harness/errors.h"
#include "harness/links/link_point.h"
#include "harness/plan/point.h"

namespace collbench {

// What a rule measures. Point metrics come from /points (the median with its 95% CI), fit
// metrics from /fits (the estimate with its bootstrap interval); link rules judge a link's
// model (/link_fits) by the fit metrics, its alpha and its bandwidth.
enum class Metric { busbw, algbw, latency, alpha, bandwidth };
std::string_view name(Metric metric);
bool is_fit_metric(Metric metric);
bool is_bandwidth(Metric metric);  // GB/s; the others are times in microseconds

// Inclusive ranges; the defaults select everything.
struct RankRange {
  int low = 1;
  int high = std::numeric_limits<int>::max();
  bool any() const { return low == 1 && high == std::numeric_limits<int>::max(); }
};
struct SizeRange {
  std::size_t low = 0;
  std::size_t high = std::numeric_limits<std::size_t>::max();
  bool any() const { return low == 0 && high == std::numeric_limits<std::size_t>::max(); }
  bool overlaps(const SizeRange& other) const { return low <= other.high && other.low <= high; }
};

// Which points a rule judges: an unset field matches every value.
struct Selection {
  std::optional<std::string> backend;
  std::optional<CollectiveKind> collective;
  std::optional<Placement> placement;
  RankRange nranks;
  std::optional<DataType> datatype;
  std::optional<ReduceOp> op;
  Mode mode = Mode::bandwidth;  // defaults by metric: latency and fits in latency mode
  std::optional<bool> in_place;
  std::optional<std::string> algorithm;
  std::optional<std::string> protocol;
  SizeRange sizes;

  // Every field but the sizes: two rules with the same selection may not overlap in size.
  bool same_except_sizes(const Selection& other) const;
};

// Which links a [[link]] rule judges: an unset field matches every link.
struct LinkSelection {
  std::optional<LinkKind> kind;
  std::optional<std::string> host;  // links with this host at either end
  std::optional<std::pair<std::string, std::string>> between;  // one link, either way round
  bool operator==(const LinkSelection&) const = default;
};

// Acceptable values are floor <= v <= ceiling (either side may be open). A floor or ceiling
// rule sets one side, a reference rule (ReFrame's reference with lower/upper fractions) one or
// both. Values are in canonical units: GB/s (10^9 B/s) for bandwidths, microseconds for times.
struct Threshold {
  std::string key;  // as written: busbw_min, latency_max, reference, ...
  Metric metric = Metric::busbw;
  std::optional<double> floor;
  std::optional<double> ceiling;
  std::optional<double> reference;  // reference rules only
  double warn_within = 0;           // fraction: passing values this close to a bound WARN
  std::string unit;                 // the unit the spec wrote, used to print values back
  double unit_scale = 1;            // canonical units per `unit`
};

struct Rule {
  int index = 0;  // 1-based, in spec order
  int line = 0;   // of its [[rule]] header
  std::string name;    // given, or made from the selection and threshold (JUnit needs one)
  bool named = false;  // the spec gave the name
  Selection selection;
  // Set for a [[link]] table, whose rule judges link fits instead (and leaves `selection` be).
  std::optional<LinkSelection> link_selection;
  Threshold threshold;
  bool optional = false;  // nothing selected: SKIP instead of FAIL
};

struct Spec {
  std::string source;  // file name for messages
  std::string title;   // JUnit suite name; the file's stem when the spec sets none
  std::vector<Rule> rules;  // [[rule]] and [[link]] tables in the order the file has them
};

// Every problem found, each "FILE:LINE: rule N: what", so one run shows them all (exit 2); the
// message is the problems, one per line.
struct SpecError : UsageError {
  explicit SpecError(std::vector<std::string> problems);
  std::vector<std::string> problems;
};

// Throws SpecError.
Spec parse_spec(std::string_view text, std::string_view source);
Spec parse_spec_file(const std::string& path);

// For people: "allreduce world 8 ranks bandwidth 1 GiB-8 GiB".
std::string describe(const Selection& selection);
// "inter links of h1", "link h1 <-> h2", "links".
std::string describe(const LinkSelection& selection);
// The rule's selection, of points or of links.
std::string describe_selection(const Rule& rule);
// ">= 300 GB/s", "<= 25 us", "360 GB/s -10%/+inf"; with the warn band when there is one.
std::string describe(const Threshold& threshold);

}  // namespace collbench
