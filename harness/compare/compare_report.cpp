#include "compare_report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "backends/tuning.h"
#include "harness/plan/sizes.h"
#include "harness/report/json_number.h"

namespace collbench {

using Json = nlohmann::ordered_json;

namespace {

std::string us_text(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.2f}", seconds * 1e6) : "n/a";
}

// alpha in us, beta as bandwidth in GB/s (its interval's ends swap under the inversion).
std::string fit_value_text(FitParameter parameter, const FitSide& side) {
  if (!(side.value > 0)) return "n/a";
  if (parameter == FitParameter::alpha)
    return fmt::format("alpha {:.3g} [{:.3g}, {:.3g}] us", side.value * 1e6, side.ci.low * 1e6,
                       side.ci.high * 1e6);
  return fmt::format("1/beta {:.3g} [{:.3g}, {:.3g}] GB/s", 1e-9 / side.value,
                     side.ci.high > 0 ? 1e-9 / side.ci.high : NAN,
                     side.ci.low > 0 ? 1e-9 / side.ci.low : NAN);
}

std::string counts_text(const ChangeCounts& n) {
  return fmt::format("{} same, {} faster, {} slower, {} unsure, {} noisy", n.same, n.faster,
                     n.slower, n.unsure, n.noisy);
}

Json counts_json(const ChangeCounts& n) {
  return Json{{"same", n.same},     {"faster", n.faster}, {"slower", n.slower},
              {"unsure", n.unsure}, {"noisy", n.noisy}};
}

std::string launch_rule(const CompareOptions& o) {
  return fmt::format("threshold {:g}%: SLOWER when the change between launches is a discovery "
                     "(Benjamini-Hochberg at q = {:g}% over the points) and the ratio is {:.4g} "
                     "or more, FASTER at {:.4g} or less; SAME when the whole {:g}% interval lies "
                     "inside [{:.4g}, {:.4g}], NOISY when it is wider than that, else UNSURE",
                     o.threshold * 100, (1 - o.confidence) * 100, 1 + o.threshold,
                     1 / (1 + o.threshold), o.confidence * 100, 1 / (1 + o.threshold),
                     1 + o.threshold);
}

// What the table's ratio and base column are, for the launches compared.
std::string ratio_meaning(const Comparison& c) {
  constexpr const char* kTime = "median time (the slowest rank's per sample)";
  switch (c.replication) {
    case Replication::history:
      return fmt::format("ratio = NEW's {} over the history's level (base: the geometric mean of "
                         "its medians since its last change)",
                         kTime);
    case Replication::pair: return fmt::format("ratio = NEW/BASE {}", kTime);
    case Replication::interleaved:
      return fmt::format("ratio = B/A {}, the geometric mean over the pairs (base, new: the "
                         "geometric means of A's and B's medians)",
                         kTime);
    case Replication::one_launch: break;
  }
  return fmt::format("nothing judged: one launch per side; ratio = NEW/BASE {}, its {:g}% "
                     "interval within the launches ({} bootstrap replicates, seed {}, joined with "
                     "the rounds' spread)",
                     kTime, c.options.confidence * 100, c.options.replicates, c.options.seed);
}

// The points' keys and ratios, as alert_text and alerts_json take them.
std::pair<std::vector<PointKey>, std::vector<double>> keys_and_ratios(const Comparison& c) {
  std::vector<PointKey> keys;
  std::vector<double> ratios;
  for (const auto& point : c.points) {
    keys.push_back(point.key);
    ratios.push_back(point.result.ratio);
  }
  return {keys, ratios};
}

// History and pair comparisons judge within NEW's host state; the others have none to match.
bool judged_within_states(const Comparison& c) {
  return c.replication == Replication::history || c.replication == Replication::pair;
}

std::string summary_line(const Comparison& c) {
  return fmt::format("# compare: {} points: {}; {} unmatched", c.points.size(),
                     counts_text(c.point_counts), c.base_only.size() + c.new_only.size());
}

std::string fit_summary_line(const Comparison& c) {
  return fmt::format("# compare: {} fit parameters: {}; {} unmatched curves",
                     c.fits.comparisons.size(), counts_text(c.fit_counts),
                     c.fits.base_only.size() + c.fits.new_only.size());
}

// Unmatched points a curve at a time: "allreduce float sum world 2 ranks latency: 3 sizes, 8 B-32 B".
std::vector<std::string> unmatched_lines(const std::vector<PointKey>& keys) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> curves;  // in first-seen order
  for (const PointKey& key : keys) {
    const std::string curve = curve_text(key);
    auto it = std::ranges::find(curves, curve, &decltype(curves)::value_type::first);
    if (it == curves.end()) it = curves.insert(curves.end(), {curve, {}});
    it->second.push_back(key.size_bytes);
  }
  std::vector<std::string> lines;
  for (auto& [curve, sizes] : curves) {
    const auto [low, high] = std::ranges::minmax(sizes);
    lines.push_back(sizes.size() == 1 ? fmt::format("{} {}", curve, format_size(low))
                                      : fmt::format("{}: {} sizes, {}-{}", curve, sizes.size(),
                                                    format_size(low), format_size(high)));
  }
  return lines;
}

Json fit_side_json(const FitSide& side) {
  return Json{{"value", finite_or_null(side.value)},
              {"ci", interval_json(side.ci)},
              {"min_size_bytes", side.min_size_bytes},
              {"max_size_bytes", side.max_size_bytes},
              {"trusted", side.trusted}};
}

}  // namespace

void print_table(std::ostream& out, const Comparison& c) {
  out << fmt::format("# verdict: {} ({})\n", name(c.overall()), counts_text(c.point_counts));
  if (c.replication == Replication::interleaved)
    out << fmt::format("# collbench compare: A {} vs B {}, {} interleaved pairs of launches\n",
                       c.base_file, c.new_file, c.a_files.size());
  else
    out << fmt::format("# collbench compare: BASE {} vs NEW {}\n", c.base_file, c.new_file);
  if (!c.earlier_files.empty())
    out << fmt::format("# earlier baselines: {}\n", fmt::join(c.earlier_files, " "));
  if (!c.history_files.empty())
    out << fmt::format("# history: {}\n", fmt::join(c.history_files, " "));
  if (c.replication == Replication::one_launch)
    out << fmt::format("# {}\n", ratio_meaning(c));
  else
    out << fmt::format("# {}; {}\n", launch_rule(c.options), ratio_meaning(c));
  const auto [keys, ratios] = keys_and_ratios(c);
  print_alerts(out, keys, ratios, c.alerts, c.night, c.confirm);
  for (const auto& note : c.notes) out << fmt::format("# note: {}\n", note);
  if (c.night) out << "# " << night_text(*c.night) << '\n';
  const std::string ci_head = fmt::format("ratio [{:g}% CI]", c.options.confidence * 100);
  out << fmt::format("# {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>12} {:>12}  {:<25} {}\n",
                     "collective", "placement", "ranks", "type", "redop", "mode", "inplace",
                     "size(B)", "base(us)", "new(us)", ci_head, "verdict");
  for (const auto& point : c.points) {
    const PointKey& k = point.key;
    const RatioResult& r = point.result;
    std::string line = fmt::format(
        "  {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>12} {:>12}  {:<25} {}",
        name(k.collective), name(k.placement), k.nranks, name(k.datatype), redop_label(k), name(k.mode),
        k.in_place ? "yes" : "no", k.size_bytes, us_text(r.base_median_s), us_text(r.new_median_s),
        ratio_text(r.ratio, r.ratio_ci), name(r.verdict));
    if (!k.algorithm.empty() || !k.protocol.empty()) line += " |" + tuning_text(k);
    if (!r.reason.empty()) line += " | " + r.reason;
    out << line << '\n';
  }
  for (const auto& fit : c.fits.comparisons) {
    std::string line = fmt::format(
        "# fit {} | {} ({}-{}): {} -> {} | ratio {} {}", curve_text(fit.key), name(fit.parameter),
        format_size(fit.base.min_size_bytes), format_size(fit.base.max_size_bytes),
        fit_value_text(fit.parameter, fit.base), fit_value_text(fit.parameter, fit.now),
        ratio_text(fit.ratio, fit.ratio_ci), name(fit.verdict));
    if (!fit.reason.empty()) line += " | " + fit.reason;
    out << line << '\n';
  }
  for (const auto& line : unmatched_lines(c.base_only)) out << "# unmatched: only in BASE: " << line << '\n';
  for (const auto& line : unmatched_lines(c.new_only)) out << "# unmatched: only in NEW: " << line << '\n';
  for (const auto& key : c.fits.base_only)
    out << fmt::format("# unmatched: fit only in BASE: {}\n", curve_text(key));
  for (const auto& key : c.fits.new_only)
    out << fmt::format("# unmatched: fit only in NEW: {}\n", curve_text(key));
  if (!c.fits.comparisons.empty() || !c.fits.base_only.empty() || !c.fits.new_only.empty())
    out << fit_summary_line(c) << '\n';
  out << summary_line(c) << '\n';
}

Json comparison_json(const Comparison& c) {
  Json json;
  json["verdict"] = name(c.overall());
  json["base"] = c.base_file;
  json["new"] = c.new_file;
  json["replication"] = name(c.replication);
  json["earlier_baselines"] = c.earlier_files;
  json["history"] = c.history_files;
  json["launches"] = Json{{"a", c.a_files}, {"b", c.b_files}};
  json["threshold"] = c.options.threshold;
  json["confidence"] = c.options.confidence;
  json["bootstrap_replicates"] = c.options.replicates;
  json["seed"] = c.options.seed;
  json["notes"] = c.notes;
  if (judged_within_states(c)) json["host_state"] = host_state_json(c.host_state);
  Json points = Json::array();
  for (const auto& point : c.points) {
    const RatioResult& r = point.result;
    Json row = key_json(point.key, true);
    row["base_samples"] = r.base_samples;
    row["new_samples"] = r.new_samples;
    row["base_median_us"] = finite_or_null(r.base_median_s * 1e6);
    row["new_median_us"] = finite_or_null(r.new_median_s * 1e6);
    row["ratio"] = finite_or_null(r.ratio);
    row["ratio_ci"] = interval_json(r.ratio_ci);
    row["observed_ratio"] = finite_or_null(r.new_median_s / r.base_median_s);
    row["run_noise"] = std::expm1(r.run_noise);
    row["baselines"] = r.baselines;
    row["launches"] = r.launches;
    row["p_value"] = finite_or_null(r.p_value);
    row["base_rounds"] = r.base_rounds;
    row["new_rounds"] = r.new_rounds;
    row["verdict"] = name(r.verdict);
    row["reason"] = r.reason;
    points.push_back(std::move(row));
  }
  json["points"] = std::move(points);
  const auto [keys, ratios] = keys_and_ratios(c);
  json["night"] = night_json(c.night);
  json["alerts"] = alerts_json(keys, ratios, c.alerts, c.night);
  json["confirm_command"] = c.confirm;
  Json fits = Json::array();
  for (const auto& fit : c.fits.comparisons) {
    Json row = key_json(fit.key, false);
    row["parameter"] = name(fit.parameter);
    row["units"] = fit.parameter == FitParameter::alpha ? "s" : "s/B";
    row["base"] = fit_side_json(fit.base);
    row["new"] = fit_side_json(fit.now);
    row["ratio"] = finite_or_null(fit.ratio);
    row["ratio_ci"] = interval_json(fit.ratio_ci);
    row["verdict"] = name(fit.verdict);
    row["reason"] = fit.reason;
    fits.push_back(std::move(row));
  }
  json["fits"] = std::move(fits);
  Json unmatched = Json::array();
  const auto add_unmatched = [&](const std::vector<PointKey>& keys, const char* side,
                                 const char* kind) {
    for (const auto& key : keys) {
      Json row{{"side", side}, {"kind", kind}};
      row.update(key_json(key, std::string_view(kind) == "point"));
      unmatched.push_back(std::move(row));
    }
  };
  add_unmatched(c.base_only, "base", "point");
  add_unmatched(c.new_only, "new", "point");
  add_unmatched(c.fits.base_only, "base", "fit");
  add_unmatched(c.fits.new_only, "new", "fit");
  json["unmatched"] = std::move(unmatched);
  Json summary;
  summary["points"] = c.points.size();
  summary.update(counts_json(c.point_counts));
  summary["unmatched"] = c.base_only.size() + c.new_only.size();
  summary["fits"] = c.fits.comparisons.size();
  summary["fit_verdicts"] = counts_json(c.fit_counts);
  summary["unmatched_fits"] = c.fits.base_only.size() + c.fits.new_only.size();
  summary["alerts"] = c.alert_count();
  json["summary"] = std::move(summary);
  return json;
}

Json interval_json(const Interval& ci) {
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) return nullptr;
  return Json::array({ci.low, ci.high});
}

std::string ratio_text(double ratio, const Interval& ci) {
  const std::string value = std::isfinite(ratio) ? fmt::format("{:.3f}", ratio) : "n/a";
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) return value;
  return fmt::format("{} [{:.3f}, {:.3f}]", value, ci.low, ci.high);
}

std::string alert_text(std::span<const PointKey> keys, std::span<const double> ratios,
                       std::span<const std::size_t> group) {
  double low = INFINITY, high = 0;
  for (std::size_t i : group) {
    low = std::min(low, ratios[i]);
    high = std::max(high, ratios[i]);
  }
  return fmt::format("{}: SLOWER at {} sizes, {}-{}, ratio {:.3f}-{:.3f}",
                     curve_text(keys[group.front()]), group.size(),
                     format_size(keys[group.front()].size_bytes),
                     format_size(keys[group.back()].size_bytes), low, high);
}

Json alerts_json(std::span<const PointKey> keys, std::span<const double> ratios,
                 const std::vector<std::vector<std::size_t>>& alerts,
                 const std::optional<LaunchVerdict>& night) {
  Json json = Json::array();
  for (const auto& alert : alerts) {
    Json sizes = Json::array();
    for (std::size_t i : alert) sizes.push_back(keys[i].size_bytes);
    Json row{{"scope", "curve"}};
    row.update(key_json(keys[alert.front()], false));
    row["sizes_bytes"] = std::move(sizes);
    row["text"] = alert_text(keys, ratios, alert);
    json.push_back(std::move(row));
  }
  if (night_alerts(night) > 0)
    json.push_back({{"scope", "night"}, {"text", night_alert_text(*night)}});
  return json;
}

void print_alerts(std::ostream& out, std::span<const PointKey> keys,
                  std::span<const double> ratios,
                  const std::vector<std::vector<std::size_t>>& alerts,
                  const std::optional<LaunchVerdict>& night, const std::string& confirm) {
  for (const auto& alert : alerts) out << "# alert: " << alert_text(keys, ratios, alert) << '\n';
  if (night_alerts(night) > 0) out << "# alert: " << night_alert_text(*night) << '\n';
  if (!confirm.empty()) out << "# next: confirm it on one allocation: " << confirm << '\n';
}

std::string night_text(const LaunchVerdict& night) {
  return fmt::format("the night as a whole: {} {}{}", ratio_text(night.ratio, night.ratio_ci),
                     name(night.verdict), night.reason.empty() ? "" : " | " + night.reason);
}

std::string night_alert_text(const LaunchVerdict& night) {
  return fmt::format("the night as a whole: SLOWER, ratio {}",
                     ratio_text(night.ratio, night.ratio_ci));
}

Json night_json(const std::optional<LaunchVerdict>& night) {
  if (!night) return nullptr;
  return {{"ratio", finite_or_null(night->ratio)},
          {"ratio_ci", interval_json(night->ratio_ci)},
          {"p_value", finite_or_null(night->p_value)},
          {"launches", night->launches},
          {"verdict", name(night->verdict)},
          {"reason", night->reason}};
}

VerdictRecord night_record(const LaunchVerdict& night) {
  VerdictRecord record;
  record.name = "night";
  record.verdict = name(night.verdict);
  record.severity = severity(night.verdict);
  record.message = night_text(night);
  record.value = night.ratio;
  record.labels = {{"kind", "night"}};
  return record;
}

Json host_state_json(const HostStateMatch& state) {
  return {{"status", host_state_status(state)},
          {"launches_in_state", state.matched()},
          {"launches", state.launches()},
          {"without_probe", state.unprobed},
          {"reason", state.host_changed()}};
}

VerdictRecord host_state_record(const HostStateMatch& state) {
  const std::string_view status = host_state_status(state);
  VerdictRecord record;
  record.name = "host state";
  record.verdict = status == "host_changed" ? "HOST_CHANGED"
                   : status == "matched"    ? "MATCHED"
                                            : "NO_PROBE";
  record.severity = status == "host_changed" ? severity(Change::unsure) : 0;
  record.message = fmt::format("NEW's host state holds {} of the history's {} launches{}",
                               state.matched(), state.launches(),
                               status == "matched" ? "" : fmt::format(" ({})", status));
  // The share of the history in NEW's state, a ratio as the points' values are.
  record.value = state.launches() == 0 ? kNoValue
                                       : static_cast<double>(state.matched()) /
                                             static_cast<double>(state.launches());
  record.labels = {{"kind", "host_state"}};
  return record;
}

std::vector<VerdictRecord> verdict_records(const Comparison& c) {
  std::vector<VerdictRecord> records;
  const std::string against = fmt::format("threshold {:g}%, {:g}% interval", c.options.threshold * 100,
                                          c.options.confidence * 100);
  for (const auto& point : c.points) {
    const RatioResult& r = point.result;
    VerdictRecord record;
    record.name = point_text(point.key);
    record.verdict = name(r.verdict);
    record.severity = severity(r.verdict);
    record.message = fmt::format("NEW/BASE median time {} ({} us -> {} us; {} and {} samples); {}{}",
                                 ratio_text(r.ratio, r.ratio_ci), us_text(r.base_median_s),
                                 us_text(r.new_median_s), r.base_samples, r.new_samples, against,
                                 r.reason.empty() ? "" : "; " + r.reason);
    record.value = r.ratio;
    record.labels = key_labels(point.key);
    record.labels.insert(record.labels.begin(), {"kind", "point"});
    record.labels.emplace_back("size_bytes", std::to_string(point.key.size_bytes));
    records.push_back(std::move(record));
  }
  if (judged_within_states(c)) records.push_back(host_state_record(c.host_state));
  if (c.night) records.push_back(night_record(*c.night));
  for (const auto& fit : c.fits.comparisons) {
    VerdictRecord record;
    record.name = fmt::format("fit {} {}", curve_text(fit.key), name(fit.parameter));
    record.verdict = name(fit.verdict);
    record.severity = severity(fit.verdict);
    record.message = fmt::format("NEW/BASE {} {} ({} -> {}); {}{}", name(fit.parameter),
                                 ratio_text(fit.ratio, fit.ratio_ci),
                                 fit_value_text(fit.parameter, fit.base),
                                 fit_value_text(fit.parameter, fit.now), against,
                                 fit.reason.empty() ? "" : "; " + fit.reason);
    record.value = fit.ratio;
    record.labels = key_labels(fit.key);
    record.labels.insert(record.labels.begin(), {"kind", "fit"});
    record.labels.emplace_back("parameter", std::string(name(fit.parameter)));
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace collbench
