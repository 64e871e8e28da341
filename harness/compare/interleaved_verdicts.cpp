#include "harness/compare/interleaved_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "harness/fit/curve_fits.h"
#include "harness/stats/no_value.h"
#include "harness/stats/rounds.h"

namespace collbench {
namespace {

bool every_median_usable(const LaunchPairs& point) {
  return std::ranges::all_of(point.a_s, usable_median) &&
         std::ranges::all_of(point.b_s, usable_median);
}

// The pairs' log differences B/A, empty with the reason when a median is missing.
std::vector<double> differences(const LaunchPairs& point, LaunchEvidence& evidence) {
  if (!every_median_usable(point) || point.a_s.size() != point.b_s.size()) {
    evidence.unjudged = "a median is zero or missing in one of the launches";
    return {};
  }
  if (point.a_s.size() < 2) {
    evidence.unjudged = "1 pair of launches: the spread between launches is unknown";
    return {};
  }
  std::vector<double> logs;
  for (std::size_t i = 0; i < point.a_s.size(); ++i)
    logs.push_back(std::log(point.b_s[i] / point.a_s[i]));
  return logs;
}

double geometric_mean(std::span<const double> values) {
  double sum = 0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

}  // namespace

std::vector<LaunchVerdict> judge_pairs(std::span<const LaunchPairs> points,
                                       const CompareOptions& options) {
  std::vector<LaunchEvidence> evidence;
  std::vector<std::vector<double>> logs;
  std::map<PointKey, std::vector<std::size_t>> curves;  // the judged points
  for (std::size_t i = 0; i < points.size(); ++i) {
    evidence.emplace_back().key = points[i].key;
    logs.push_back(differences(points[i], evidence.back()));
    if (!logs.back().empty()) curves[curve_key(points[i].key)].push_back(i);
  }
  for (const auto& [curve, members] : curves) {
    std::vector<std::vector<double>> curve_logs;
    for (std::size_t i : members) curve_logs.push_back(logs[i]);
    const std::vector<double> shifts = launch_shifts(curve_logs);
    const SharedEffect shared = shared_effect(shifts);
    for (std::size_t i : members) {
      std::vector<double> own;
      for (std::size_t k = 0; k < logs[i].size(); ++k) own.push_back(logs[i][k] - shifts[k]);
      LaunchEvidence& e = evidence[i];
      const LogSpread spread = spread_of_logs(own);
      e.launches = spread.count;
      e.own_variance = spread.variance;
      e.own_df = static_cast<double>(spread.count) - 1;
      e.log_change = spread_of_logs(logs[i]).mean;
      e.shared = shared;
      e.se_per_sd = 1 / std::sqrt(static_cast<double>(logs[i].size()));
    }
  }
  return judge_launches(evidence, options);
}

LaunchComparison compare_interleaved(std::span<const std::vector<PointResult>> a,
                                     std::span<const std::vector<PointResult>> b,
                                     const PointMatch& match, const CompareOptions& options) {
  using ByKey = std::unordered_map<std::string, const PointResult*>;
  const auto by_key = [&](std::span<const std::vector<PointResult>> launches) {
    std::vector<ByKey> files(launches.size());
    for (std::size_t f = 0; f < launches.size(); ++f)
      for (const PointResult& point : launches[f])
        files[f].emplace(match_key(point.key, match.ignore_backend), &point);
    return files;
  };
  const std::vector<ByKey> a_files = by_key(a), b_files = by_key(b);
  std::vector<LaunchPairs> pairs;
  std::vector<PointComparison> results;
  for (const auto& [i, j] : match.matched) {
    const PointKey& key = a.front()[i].key;
    const std::string text = match_key(key, match.ignore_backend);
    LaunchPairs pair{key, {}, {}};
    RatioResult r;
    const auto collect = [&](const std::vector<ByKey>& files, std::vector<double>& medians,
                             std::size_t& samples) {
      for (const ByKey& file : files) {
        const auto found = file.find(text);
        medians.push_back(found == file.end() ? kNoValue : found->second->summary.median);
        samples += found == file.end() ? 0 : found->second->summary.samples;
      }
    };
    collect(a_files, pair.a_s, r.base_samples);
    collect(b_files, pair.b_s, r.new_samples);
    const bool complete = every_median_usable(pair);
    r.base_median_s = complete ? geometric_mean(pair.a_s) : kNoValue;
    r.new_median_s = complete ? geometric_mean(pair.b_s) : kNoValue;
    r.baselines = pair.a_s.size();
    results.push_back({key, r});
    pairs.push_back(std::move(pair));
  }
  return launch_comparison(std::move(results), judge_pairs(pairs, options));
}

}  // namespace collbench
