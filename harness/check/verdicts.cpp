#include "verdicts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "collectives/collective.h"
#include "harness/plan/point_identity.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A point's value and interval. Bandwidths are size/time, so the time interval maps to the
// bandwidth interval inverted: the slow end of the time interval is the low bandwidth.
Measured measure_point(Metric metric, const PointResult& point) {
  Measured m;
  m.key = point.key;
  m.where = point_text(point.key);
  const Summary& s = point.summary;
  if (metric == Metric::latency) {
    m.value = s.median * 1e6;
    m.low = s.ci_low * 1e6;
    m.high = s.ci_high * 1e6;
    return m;
  }
  m.value = metric == Metric::busbw ? point.busbw_gbps : point.algbw_gbps;
  if (s.median > 0) {
    m.low = s.ci_high > 0 ? m.value * s.median / s.ci_high : kNoValue;
    m.high = s.ci_low > 0 ? m.value * s.median / s.ci_low : kInfinity;
  }
  return m;
}

// What a fit rule judges: without a size range, the headline (the first segment's alpha and
// the last one's beta in files fitted before it existed); with one, every segment it overlaps.
std::vector<SegmentReport> segments_of(const Rule& rule, const CurveFit& curve) {
  std::vector<SegmentReport> chosen;
  if (curve.segments.empty()) return chosen;
  if (rule.selection.sizes.any()) {
    if (curve.headline)
      chosen.push_back(headline_segment(curve));
    else
      chosen.push_back(rule.threshold.metric == Metric::alpha ? curve.segments.front()
                                                               : curve.segments.back());
    return chosen;
  }
  for (const auto& segment : curve.segments)
    if (rule.selection.sizes.overlaps({segment.min_size_bytes, segment.max_size_bytes}))
      chosen.push_back(segment);
  return chosen;
}

Measured measure_segment(Metric metric, const CurveFit& curve, const SegmentReport& segment) {
  Measured m;
  m.key = curve.key;
  m.segment_min_bytes = segment.min_size_bytes;
  m.segment_max_bytes = segment.max_size_bytes;
  m.where = fmt::format("fit {}-{} {}", format_size(segment.min_size_bytes),
                        format_size(segment.max_size_bytes), curve_text(curve.key));
  if (metric == Metric::alpha) {
    m.value = segment.alpha_s * 1e6;
    m.low = segment.alpha_ci.low * 1e6;
    m.high = segment.alpha_ci.high * 1e6;
  } else {  // 1/beta; 1 ns/B is 1 GB/s
    const auto gbps = [](double beta_s_per_byte, double if_zero) {
      return beta_s_per_byte > 0 ? 1e-9 / beta_s_per_byte : if_zero;
    };
    m.value = gbps(segment.beta_s_per_byte, kNoValue);
    m.low = gbps(segment.beta_ci.high, kNoValue);
    m.high = gbps(segment.beta_ci.low, kInfinity);
  }
  return m;
}

// Flags that make the judged parameter unusable: those that name it, and those that name
// neither parameter (a misfit, too few sizes: about both). "not significant" is left out: it
// says the interval reaches zero, which the interval test already weighs.
std::vector<std::string> trust_flags(Metric metric, const SegmentReport& segment) {
  const std::string parameter = metric == Metric::alpha ? "alpha" : "beta";
  const std::string other = metric == Metric::alpha ? "beta" : "alpha";
  std::vector<std::string> flags;
  for (const auto& flag : segment.flags) {
    const bool about_it = flag.find(parameter) != std::string::npos ||
                          flag.find(other) == std::string::npos;
    if (about_it && flag.find("not significant") == std::string::npos) flags.push_back(flag);
  }
  return flags;
}

struct Item {
  Measured measured;
  Judgement judgement;
};

// Worst first: higher severity, then the smaller margin.
bool worse(const Item& a, const Item& b) {
  if (severity(a.judgement.verdict) != severity(b.judgement.verdict))
    return severity(a.judgement.verdict) > severity(b.judgement.verdict);
  return a.judgement.margin < b.judgement.margin;
}

std::vector<Item> point_items(const Rule& rule, std::span<const PointResult> points) {
  std::vector<Item> items;
  for (const auto& point : points) {
    if (!selects(rule.selection, point.key, true)) continue;
    Item item{measure_point(rule.threshold.metric, point), {}};
    item.judgement = judge_value(rule.threshold, item.measured.value, item.measured.low,
                                 item.measured.high);
    // A point that stopped before it had an interval is judged by its median, but never passes:
    // the bound could lie anywhere around it.
    if (item.judgement.verdict == Verdict::pass && !median_interval_covers(point.summary.samples))
      item.judgement = {Verdict::warn,
                        fmt::format("{} samples give no 95% interval", point.summary.samples),
                        item.judgement.margin};
    // A wrong result never passes acceptance, however fast; nor numbers this host cannot make.
    if (point.implausible != Implausible::no)
      item.judgement = {Verdict::fail, "implausible: " + implausible_reason(point), -kInfinity};
    if (point.checks.failed())
      item.judgement = {Verdict::fail, checks_text(point.checks), -kInfinity};
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<Item> fit_items(const Rule& rule, const ModelReport& models) {
  std::vector<Item> items;
  for (const auto& curve : models.curves) {
    if (!selects(rule.selection, curve.key, false)) continue;
    if (curve.segments.empty()) {  // selected, but could not be fitted
      Item item;
      item.measured.key = curve.key;
      item.measured.where = curve_text(curve.key);
      item.judgement = {Verdict::fail,
                        fmt::format("curve not fitted ({})", fmt::join(curve.flags, "; ")),
                        -kInfinity};
      items.push_back(std::move(item));
      continue;
    }
    for (const SegmentReport& segment : segments_of(rule, curve)) {
      Item item{measure_segment(rule.threshold.metric, curve, segment), {}};
      item.judgement = judge_value(rule.threshold, item.measured.value, item.measured.low,
                                   item.measured.high);
      const auto flags = trust_flags(rule.threshold.metric, segment);
      if (!flags.empty() && severity(item.judgement.verdict) < severity(Verdict::warn))
        item.judgement = {Verdict::warn,
                          fmt::format("fit not trusted: {}", fmt::join(flags, "; ")),
                          item.judgement.margin};
      items.push_back(std::move(item));
    }
  }
  return items;
}

std::vector<Item> link_items(const Rule& rule, std::span<const LinkFit> links) {
  const bool by_rank = named_by_rank(links);
  std::vector<Item> items;
  for (const LinkFit& link : links) {
    if (!selects(*rule.link_selection, link)) continue;
    Item item;
    const double value =
        rule.threshold.metric == Metric::alpha ? link.alpha_us : link.bandwidth_GBps;
    item.measured.value = value;
    item.measured.link = link;
    item.measured.where = pair_label(link, by_rank);
    item.judgement = judge_value(rule.threshold, value, value, value);
    items.push_back(std::move(item));
  }
  return items;
}

// What a rule judged, what one of them is called, and why there is nothing when nothing.
struct Judged {
  std::vector<Item> items;
  std::string_view noun;
  std::string_view none;
};

Judged judged_by(const Rule& rule, std::span<const PointResult> points, const ModelReport* models,
                 std::span<const LinkFit> links) {
  if (rule.link_selection) return {link_items(rule, links), "link", "no matching links"};
  if (!is_fit_metric(rule.threshold.metric))
    return {point_items(rule, points), "point", "no matching points"};
  if (!models) return {{}, "segment", "no fits in the file (run `collbench fit FILE` first)"};
  return {fit_items(rule, *models), "segment", "no matching fitted curves"};
}

std::string percent(double fraction) { return fmt::format("{:.3g}%", std::abs(fraction) * 100); }

}  // namespace

std::string_view name(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "PASS";
    case Verdict::skip: return "SKIP";
    case Verdict::warn: return "WARN";
    case Verdict::fail: return "FAIL";
  }
  return "FAIL";
}

int severity(Verdict verdict) {
  return verdict == Verdict::fail ? 2 : verdict == Verdict::warn ? 1 : 0;
}

Judgement judge_value(const Threshold& t, double value, double low, double high) {
  if (!std::isfinite(value)) return {Verdict::fail, "no value (not measurable)", -kInfinity};
  double margin = kInfinity;
  if (t.floor) margin = std::min(margin, value / *t.floor - 1);
  if (t.ceiling) margin = std::min(margin, 1 - value / *t.ceiling);
  if (t.floor && value < *t.floor)
    return {Verdict::fail, fmt::format("{} below the floor", percent(margin)), margin};
  if (t.ceiling && value > *t.ceiling)
    return {Verdict::fail, fmt::format("{} above the ceiling", percent(1 - value / *t.ceiling)),
            margin};
  const double w = t.warn_within;
  if (t.floor && value < *t.floor * (1 + w))
    return {Verdict::warn, fmt::format("within {} of the floor", percent(w)), margin};
  if (t.ceiling && value > *t.ceiling * (1 - w))
    return {Verdict::warn, fmt::format("within {} of the ceiling", percent(w)), margin};
  if (t.floor && low < *t.floor)  // NaN compares false: no interval, no warning
    return {Verdict::warn, "the floor is inside the 95% interval", margin};
  if (t.ceiling && high > *t.ceiling)
    return {Verdict::warn, "the ceiling is inside the 95% interval", margin};
  return {Verdict::pass, "", margin};
}

bool selects(const Selection& s, const PointKey& key, bool with_sizes) {
  if (s.backend && *s.backend != key.backend) return false;
  if (s.collective && *s.collective != key.collective) return false;
  if (s.placement && *s.placement != key.placement) return false;
  if (key.nranks < s.nranks.low || key.nranks > s.nranks.high) return false;
  if (s.datatype && *s.datatype != key.datatype) return false;
  if (s.op && (!uses_reduce_op(key.collective) || *s.op != key.op)) return false;
  if (s.mode != key.mode) return false;
  if (s.in_place && *s.in_place != key.in_place) return false;
  if (s.algorithm && *s.algorithm != key.algorithm) return false;
  if (s.protocol && *s.protocol != key.protocol) return false;
  if (with_sizes && (key.size_bytes < s.sizes.low || key.size_bytes > s.sizes.high)) return false;
  return true;
}

bool selects(const LinkSelection& s, const LinkFit& link) {
  if (s.kind && *s.kind != link.kind) return false;
  if (s.host && *s.host != link.first_host && *s.host != link.second_host) return false;
  if (s.between && *s.between != std::pair{link.first_host, link.second_host} &&
      *s.between != std::pair{link.second_host, link.first_host})
    return false;
  return true;
}

RuleVerdict judge_rule(const Rule& rule, std::span<const PointResult> points,
                       const ModelReport* models, std::span<const LinkFit> links) {
  RuleVerdict result;
  result.rule = rule;
  const auto [items, what, none] = judged_by(rule, points, models, links);
  result.judged = items.size();
  if (items.empty()) {
    result.verdict = rule.optional ? Verdict::skip : Verdict::fail;
    result.message = none;
    if (rule.optional) result.message += " (optional rule)";
    return result;
  }
  for (const auto& item : items) {
    result.failing += item.judgement.verdict == Verdict::fail;
    result.warning += item.judgement.verdict == Verdict::warn;
  }
  const Item& worst = *std::min_element(items.begin(), items.end(), worse);
  result.verdict = worst.judgement.verdict;
  result.measured = worst.measured;
  result.message = fmt::format("{} {}{} judged", items.size(), what, items.size() == 1 ? "" : "s");
  if (result.failing) result.message += fmt::format(", {} fail", result.failing);
  if (result.warning) result.message += fmt::format(", {} warn", result.warning);
  result.message += fmt::format("; {} at {}",
                                worst.judgement.why.empty() ? "worst" : worst.judgement.why,
                                worst.measured.where);
  return result;
}

std::vector<RuleVerdict> judge_spec(const Spec& spec, std::span<const PointResult> points,
                                    const ModelReport* models, std::span<const LinkFit> links) {
  std::vector<RuleVerdict> verdicts;
  for (const auto& rule : spec.rules) verdicts.push_back(judge_rule(rule, points, models, links));
  return verdicts;
}

Verdict overall(std::span<const RuleVerdict> verdicts) {
  Verdict worst = Verdict::pass;
  for (const auto& v : verdicts)
    if (severity(v.verdict) > severity(worst)) worst = v.verdict;
  return worst;
}

std::string format_measured(const Threshold& t, const Measured& m) {
  const auto shown = [&](double canonical) {
    if (std::isnan(canonical)) return std::string("?");
    if (std::isinf(canonical)) return std::string(canonical > 0 ? "inf" : "-inf");
    return fmt::format("{:.4g}", canonical / t.unit_scale);
  };
  if (std::isnan(m.value)) return "-";
  if (m.link) return fmt::format("{} {}", shown(m.value), t.unit);  // a link's model: no interval
  return fmt::format("{} {} [{}, {}]", shown(m.value), t.unit, shown(m.low), shown(m.high));
}

}  // namespace collbench
