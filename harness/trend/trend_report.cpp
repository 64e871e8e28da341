#include "harness/trend/trend_report.h"

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/compare/compare_report.h"
#include "harness/plan/point_identity.h"
#include "harness/report/json_number.h"

namespace collbench {
namespace {

using Json = nlohmann::ordered_json;

std::string run_name(const Trend& trend, std::size_t run) {
  return std::filesystem::path(trend.files[run]).filename().string();
}

// "run 5 (20261201T0300Z-42.h5): 0.66 -> 0.73 us (+10.6%, p 0.003)"
std::string change_text(const Trend& trend, const TrendPoint& point, const ChangePoint& change) {
  const std::size_t run = point.runs[change.index];
  return fmt::format("run {} ({}): {:.3g} -> {:.3g} us ({:+.1f}%, p {:.2g})", run + 1,
                     run_name(trend, run), change.before * 1e6, change.after * 1e6,
                     (change.after / change.before - 1) * 100, change.p_value);
}

std::string changes_text(const Trend& trend, const TrendPoint& point) {
  if (point.changes.empty()) return "no change point";
  std::vector<std::string> parts;
  for (const auto& change : point.changes) parts.push_back(change_text(trend, point, change));
  if (point.runs_at_level() > trend.recent)
    parts.push_back(fmt::format("its level has held {} runs: the normal now",
                                point.runs_at_level()));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// What the verdict judged: "the newest 3 runs against 5 before them", or why nothing.
std::string judged_text(const TrendPoint& point) {
  if (!point.judged.reason.empty()) return point.judged.reason;
  if (point.judged_runs == 1)
    return fmt::format("the newest run against {} before it", point.judged.launches);
  return fmt::format("the newest {} runs against {} before them", point.judged_runs,
                     point.judged.launches);
}

std::vector<PointKey> keys_of(const Trend& trend) {
  std::vector<PointKey> keys;
  for (const TrendPoint& point : trend.points) keys.push_back(point.key);
  return keys;
}

std::vector<double> ratios_of(const Trend& trend) {
  std::vector<double> ratios;
  for (const TrendPoint& point : trend.points) ratios.push_back(point.judged.ratio);
  return ratios;
}

std::string method_text(const ChangePointOptions& o) {
  return fmt::format("change points: a level of at least {} runs whose geometric mean differs from "
                     "the rest's by at least {:g}% with p <= {:g} (Student's t on the logs, "
                     "Bonferroni over candidates), searched again within each part",
                     o.min_segment, o.min_magnitude * 100, o.alpha);
}

}  // namespace

void print_trend_table(std::ostream& out, const Trend& trend) {
  out << fmt::format("# collbench trend: {} runs, oldest first\n", trend.files.size());
  for (std::size_t run = 0; run < trend.files.size(); ++run)
    out << fmt::format("# run {}: {}\n", run + 1, trend.files[run]);
  out << fmt::format("# {}\n", method_text(trend.options));
  out << fmt::format("# verdict: the newest level (the runs since the latest change while it holds "
                     "at most {} runs, else the newest run) against the runs before it in the "
                     "newest run's host state, as compare judges a night: threshold {:g}%, "
                     "tested at q = {:g}%; an alert is two neighbouring sizes SLOWER, or the "
                     "newest level SLOWER as a whole\n",
                     trend.recent, trend.options.min_magnitude * 100, trend.options.alpha * 100);
  out << fmt::format("# host state: {} ({} of the {} earlier runs in the newest's state)\n",
                     host_state_status(trend.host_state), trend.host_state.matched(),
                     trend.host_state.launches());
  print_alerts(out, keys_of(trend), ratios_of(trend), trend.alerts, trend.night,
               trend.confirm);
  if (trend.night) out << "# " << night_text(*trend.night) << '\n';
  out << fmt::format("# {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>5} {:>12} {:>12}  {:<25} {:<8} {}\n",
                     "collective", "placement", "ranks", "type", "redop", "mode", "inplace",
                     "size(B)", "runs", "first(us)", "last(us)", "ratio [CI]", "verdict", "changes");
  for (const TrendPoint& point : trend.points) {
    const PointKey& k = point.key;
    out << fmt::format(
        "  {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>5} {:>12.2f} {:>12.2f}  {:<25} {:<8} {} | {}\n",
        name(k.collective), name(k.placement), k.nranks, name(k.datatype), redop_label(k), name(k.mode),
        k.in_place ? "yes" : "no", k.size_bytes, point.runs.size(), point.medians_s.front() * 1e6,
        point.medians_s.back() * 1e6, ratio_text(point.judged.ratio, point.judged.ratio_ci),
        name(point.judged.verdict), judged_text(point), changes_text(trend, point));
  }
  const ChangeCounts& n = trend.counts;
  out << fmt::format("# trend: {} points over {} runs: {} same, {} faster, {} slower, {} unsure, "
                     "{} noisy; {} alerts\n",
                     trend.points.size(), trend.files.size(), n.same, n.faster, n.slower, n.unsure,
                     n.noisy, trend.alert_count());
}

Json trend_json(const Trend& trend) {
  Json json;
  json["runs"] = trend.files;
  json["alpha"] = trend.options.alpha;
  json["min_magnitude"] = trend.options.min_magnitude;
  json["min_segment"] = trend.options.min_segment;
  json["recent"] = trend.recent;
  Json points = Json::array();
  for (const TrendPoint& point : trend.points) {
    Json row = key_json(point.key, true);
    row["runs"] = point.runs;
    std::vector<double> microseconds;
    for (double seconds : point.medians_s) microseconds.push_back(seconds * 1e6);
    row["median_us"] = microseconds;
    Json changes = Json::array();
    for (const ChangePoint& change : point.changes)
      changes.push_back({{"run", point.runs[change.index]},
                         {"before_us", change.before * 1e6},
                         {"after_us", change.after * 1e6},
                         {"change", change.after / change.before - 1},
                         {"p_value", change.p_value}});
    row["changes"] = std::move(changes);
    row["runs_at_level"] = point.runs_at_level();
    row["judged_runs"] = point.judged_runs;
    row["launches"] = point.judged.launches;
    row["ratio"] = finite_or_null(point.judged.ratio);
    row["ratio_ci"] = interval_json(point.judged.ratio_ci);
    row["p_value"] = finite_or_null(point.judged.p_value);
    row["verdict"] = name(point.judged.verdict);
    row["reason"] = point.judged.reason;
    points.push_back(std::move(row));
  }
  json["points"] = std::move(points);
  json["host_state"] = host_state_json(trend.host_state);
  json["night"] = night_json(trend.night);
  json["alerts"] = alerts_json(keys_of(trend), ratios_of(trend), trend.alerts, trend.night);
  json["confirm_command"] = trend.confirm;
  const ChangeCounts& n = trend.counts;
  json["summary"] = {{"points", trend.points.size()}, {"same", n.same},     {"faster", n.faster},
                     {"slower", n.slower},            {"unsure", n.unsure}, {"noisy", n.noisy},
                     {"alerts", trend.alert_count()}};
  return json;
}

std::vector<VerdictRecord> trend_verdict_records(const Trend& trend) {
  std::vector<VerdictRecord> records{host_state_record(trend.host_state)};
  if (trend.night) records.push_back(night_record(*trend.night));
  for (const TrendPoint& point : trend.points) {
    VerdictRecord record;
    record.name = point_text(point.key);
    record.verdict = name(point.judged.verdict);
    record.severity = severity(point.judged.verdict);
    record.message = fmt::format("median time over {} runs: {} {}; {}", point.runs.size(),
                                 ratio_text(point.judged.ratio, point.judged.ratio_ci),
                                 judged_text(point), changes_text(trend, point));
    record.value = point.judged.ratio;
    record.labels = key_labels(point.key);
    record.labels.insert(record.labels.begin(), {"kind", "point"});
    record.labels.emplace_back("size_bytes", std::to_string(point.key.size_bytes));
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace collbench
