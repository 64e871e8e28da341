#pragma once
// Judging a run against an acceptance spec: pure functions over points and fits, so every
// edge (exactly at a floor, inside the warn band, a threshold inside the interval, no
// matching points) is unit-testable without files.
//
// The rule, per judged value v with its 95% interval [low, high] and bounds floor/ceiling:
//   FAIL  v is outside the bounds (v < floor or v > ceiling), or the point has wrong elements,
//         or is implausible (harness/plan/plausibility.h);
//   WARN  v is inside, but within warn_within of a bound (v < floor·(1+w) or
//         v > ceiling·(1-w)), or the bound lies inside the interval (low < floor or
//         high > ceiling): the pass is not statistically sure; or the fitted parameter is
//         flagged untrusted (negative, interval wider than the value);
//         A point with too few samples for a 95% interval (a point that stopped short of its
//         target: see converged()) is at best a WARN.
//   PASS  otherwise. Exactly at the bound passes.
// The median (the estimate, for fits) decides pass or fail, as nccl-tests' numbers do; the
// interval can only turn a PASS into a WARN, never rescue a FAIL. A rule judges every value it
// selects and takes the worst; a rule that selects nothing FAILs ("no matching points"),
// or SKIPs when it is optional. A link rule judges links' models, which have no interval: only
// the bounds and the warn band decide.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/check/spec.h"
#include "harness/fit/curve_fits.h"
#include "harness/links/link_fits.h"
#include "harness/plan/point.h"
#include "harness/stats/no_value.h"

namespace collbench {

enum class Verdict { pass, skip, warn, fail };
std::string_view name(Verdict verdict);  // PASS, SKIP, WARN, FAIL
int severity(Verdict verdict);           // 0 pass or skip, 1 warn, 2 fail

// One value a rule judged: a point's median, a fitted segment's parameter or a link's, in
// canonical units (GB/s, microseconds), with its 95% interval (none for a link).
struct Measured {
  double value = kNoValue;
  double low = kNoValue;
  double high = kNoValue;
  PointKey key;                     // the point, or the curve (size 0) for fits
  std::size_t segment_min_bytes = 0;  // fits: the segment's size range
  std::size_t segment_max_bytes = 0;
  std::optional<LinkFit> link;      // link rules: the link
  std::string where;                // "64 MiB allreduce world 2 ranks float" for people
};

struct Judgement {
  Verdict verdict = Verdict::pass;
  std::string why;   // empty for a plain pass
  double margin = 0;  // distance to the nearest bound as a fraction of it; negative: outside
};

// The verdict for one value against one threshold (the rules above, without trust flags).
Judgement judge_value(const Threshold& threshold, double value, double low, double high);

struct RuleVerdict {
  Rule rule;
  Verdict verdict = Verdict::fail;
  std::optional<Measured> measured;  // the deciding value: the worst one judged
  std::size_t judged = 0;            // points, fitted segments or links
  std::size_t failing = 0;
  std::size_t warning = 0;
  std::string message;
};

bool selects(const Selection& selection, const PointKey& key, bool with_sizes);
bool selects(const LinkSelection& selection, const LinkFit& link);

// `models` is null when the file holds no fits; `links` is empty unless it is a links file.
RuleVerdict judge_rule(const Rule& rule, std::span<const PointResult> points,
                       const ModelReport* models, std::span<const LinkFit> links = {});
std::vector<RuleVerdict> judge_spec(const Spec& spec, std::span<const PointResult> points,
                                    const ModelReport* models,
                                    std::span<const LinkFit> links = {});

// The worst verdict over rules (SKIP counts as PASS).
Verdict overall(std::span<const RuleVerdict> verdicts);

// A value in the rule's own unit with its interval: "312.4 GB/s [309.9, 314.0]".
std::string format_measured(const Threshold& threshold, const Measured& measured);

}  // namespace collbench
