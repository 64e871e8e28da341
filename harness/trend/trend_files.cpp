#include "harness/trend/trend_files.h"

#include <unordered_map>

#include "harness/store/result_file.h"

namespace collbench {

Trend trend_of_files(const std::vector<std::string>& files, const ChangePointOptions& options,
                     std::size_t recent) {
  Trend trend;
  trend.files = files;
  trend.options = options;
  trend.recent = recent;
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t run = 0; run < files.size(); ++run) {
    const ResultFile file = read_result_file(files[run], false);
    if (run + 1 == files.size())
      trend.latest_run =
          verdict_run(file.provenance.text_of("start_utc"), file.provenance.text_of("end_utc"));
    for (const PointResult& point : file.points) {
      if (!(point.summary.median > 0)) continue;
      const auto [found, added] =
          index_of.emplace(match_key(point.key, false), trend.points.size());
      if (added) trend.points.push_back({point.key, {}, {}, {}, Change::unsure});
      TrendPoint& series = trend.points[found->second];
      if (!series.runs.empty() && series.runs.back() == run) continue;  // a key twice: the first
      series.runs.push_back(run);
      series.medians_s.push_back(point.summary.median);
    }
  }
  for (TrendPoint& point : trend.points) {
    if (point.medians_s.size() >= 2 * options.min_segment) {
      point.changes = change_points(point.medians_s, options);
      point.verdict = point.changes.empty() || point.runs_at_level() > recent    ? Change::same
                      : point.changes.back().after > point.changes.back().before ? Change::slower
                                                                                 : Change::faster;
    }
    trend.counts.add(point.verdict);
  }
  return trend;
}

}  // namespace collbench
