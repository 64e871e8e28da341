#include "harness/trend/trend_report.h"

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/compare/compare_report.h"
#include "harness/plan/point_identity.h"

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
  if (point.verdict == Change::unsure)
    return fmt::format("{} runs: too few for a change point (at least {})", point.runs.size(),
                       2 * trend.options.min_segment);
  std::vector<std::string> parts;
  for (const auto& change : point.changes) parts.push_back(change_text(trend, point, change));
  if (!point.changes.empty() && point.verdict == Change::same)
    parts.push_back(fmt::format("its level has held {} runs: the normal now",
                                point.runs_at_level()));
  return fmt::format("{}", fmt::join(parts, "; "));
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
  out << fmt::format("# {}; the verdict is the latest change's direction while its level holds "
                     "at most {} runs\n",
                     method_text(trend.options), trend.recent);
  out << fmt::format("# {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>5} {:>12} {:>12}  {:<8} {}\n",
                     "collective", "placement", "ranks", "type", "redop", "mode", "inplace",
                     "size(B)", "runs", "first(us)", "last(us)", "verdict", "changes");
  for (const TrendPoint& point : trend.points) {
    const PointKey& k = point.key;
    out << fmt::format(
        "  {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>5} {:>12.2f} {:>12.2f}  {:<8} {}\n",
        name(k.collective), name(k.placement), k.nranks, name(k.datatype), redop_label(k), name(k.mode),
        k.in_place ? "yes" : "no", k.size_bytes, point.runs.size(), point.medians_s.front() * 1e6,
        point.medians_s.back() * 1e6, name(point.verdict), changes_text(trend, point));
  }
  const ChangeCounts& n = trend.counts;
  out << fmt::format("# trend: {} points over {} runs: {} same, {} faster, {} slower, {} unsure\n",
                     trend.points.size(), trend.files.size(), n.same, n.faster, n.slower, n.unsure);
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
    row["verdict"] = name(point.verdict);
    points.push_back(std::move(row));
  }
  json["points"] = std::move(points);
  const ChangeCounts& n = trend.counts;
  json["summary"] = {{"points", trend.points.size()}, {"same", n.same},     {"faster", n.faster},
                     {"slower", n.slower},            {"unsure", n.unsure}};
  return json;
}

std::vector<VerdictRecord> trend_verdict_records(const Trend& trend) {
  std::vector<VerdictRecord> records;
  for (const TrendPoint& point : trend.points) {
    VerdictRecord record;
    record.name = point_text(point.key);
    record.verdict = name(point.verdict);
    record.severity = severity(point.verdict);
    record.message = fmt::format("median time over {} runs: {}", point.runs.size(),
                                 point.changes.empty() && point.verdict == Change::same
                                     ? "no change point"
                                     : changes_text(trend, point));
    record.value = point.changes.empty()
                       ? 1.0
                       : point.changes.back().after / point.changes.back().before;
    record.labels = key_labels(point.key);
    record.labels.insert(record.labels.begin(), {"kind", "point"});
    record.labels.emplace_back("size_bytes", std::to_string(point.key.size_bytes));
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace collbench
