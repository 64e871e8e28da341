#include "harness/compare/history_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "harness/fit/curve_fits.h"
#include "harness/stats/change_points.h"
#include "harness/stats/false_discovery.h"
#include "harness/stats/moderated_variance.h"
#include "harness/stats/no_value.h"
#include "harness/stats/rounds.h"
#include "harness/stats/sampling_distributions.h"

namespace collbench {
namespace {

// Beyond this many degrees of freedom Student's t is the normal distribution to the digits
// that matter here.
constexpr double kNormalDf = 1e6;

// A point's launches since the history's last change: their mean log and its spread (count 0
// when a median is missing).
LogSpread window_of(std::span<const double> medians, const CompareOptions& options) {
  if (std::ranges::any_of(medians, [](double m) { return !(m > 0) || !std::isfinite(m); }))
    return {};
  ChangePointOptions change;
  change.alpha = 1 - options.confidence;
  change.min_magnitude = options.threshold;
  const auto changes = change_points(medians, change);
  return log_spread(medians.subspan(changes.empty() ? 0 : changes.back().index));
}

}  // namespace

std::vector<HistoryVerdict> judge_against_history(std::span<const LaunchHistory> points,
                                                  const CompareOptions& options) {
  std::vector<HistoryVerdict> verdicts(points.size());
  std::vector<LogSpread> windows;
  for (const auto& point : points) windows.push_back(window_of(point.medians_s, options));

  // Each curve's prior, from its points with a spread.
  std::map<PointKey, VariancePrior> priors;
  {
    std::map<PointKey, std::pair<std::vector<double>, std::vector<double>>> spreads;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (windows[i].count >= 2) {
        auto& [variances, df] = spreads[curve_key(points[i].key)];
        variances.push_back(windows[i].variance);
        df.push_back(static_cast<double>(windows[i].count - 1));
      }
    for (const auto& [curve, spread] : spreads)
      priors[curve] = fit_variance_prior(spread.first, spread.second);
  }

  const double two_sided = 0.5 + options.confidence / 2;
  std::vector<std::size_t> judged;
  std::vector<double> p_values;
  for (std::size_t i = 0; i < points.size(); ++i) {
    HistoryVerdict& v = verdicts[i];
    const LogSpread& w = windows[i];
    v.launches = w.count;
    v.ratio_ci = {kNoValue, kNoValue};
    v.ratio =
        w.count > 0 && points[i].tonight_s > 0 ? points[i].tonight_s / std::exp(w.mean) : kNoValue;
    if (w.count == 0 || !(v.ratio > 0)) {
      v.reason = "a median tonight or in the history is zero or missing";
      continue;
    }
    if (w.count < 2) {
      v.reason = "1 launch since the history's last change: the spread between launches is "
                 "unknown";
      continue;
    }
    const ModeratedVariance moderated = moderate(priors.at(curve_key(points[i].key)), w.variance,
                                                 static_cast<double>(w.count - 1));
    const double se =
        std::sqrt(moderated.variance * (1 + 1 / static_cast<double>(w.count)));
    if (!(se > 0)) {
      v.reason = "the history's launches agree exactly: no spread to judge against";
      continue;
    }
    const double df = std::min(moderated.df, kNormalDf);
    const double half_width = student_t_quantile(two_sided, df) * se;
    v.ratio_ci = {v.ratio * std::exp(-half_width), v.ratio * std::exp(half_width)};
    v.p_value = 2 * (1 - student_t_cdf(std::abs(std::log(v.ratio)) / se, df));
    judged.push_back(i);
    p_values.push_back(v.p_value);
  }

  const double q = 1 - options.confidence;
  const std::vector<bool> changed = benjamini_hochberg(p_values, q);
  const double slower = 1 + options.threshold, faster = 1 / (1 + options.threshold);
  for (std::size_t j = 0; j < judged.size(); ++j) {
    HistoryVerdict& v = verdicts[judged[j]];
    if (changed[j] && v.ratio >= slower)
      v.verdict = Change::slower;
    else if (changed[j] && v.ratio <= faster)
      v.verdict = Change::faster;
    else if (v.ratio_ci.low >= faster && v.ratio_ci.high <= slower)
      v.verdict = Change::same;
    else if (v.ratio_ci.high / v.ratio > slower)  // wider than the band on either side
      v.verdict = Change::noisy;
    else
      v.verdict = Change::unsure;
  }
  return verdicts;
}

HistoryComparison compare_to_history(std::span<const PointResult> base,
                                     std::span<const PointResult> now, const PointMatch& match,
                                     const CompareOptions& options,
                                     std::span<const std::vector<PointResult>> earlier) {
  // Each earlier file's points by key (the first of a key, as match_points pairs them).
  std::vector<std::unordered_map<std::string, const PointResult*>> earlier_by_key(earlier.size());
  for (std::size_t f = 0; f < earlier.size(); ++f)
    for (const PointResult& point : earlier[f])
      earlier_by_key[f].emplace(match_key(point.key, match.ignore_backend), &point);
  std::vector<LaunchHistory> histories;
  for (const auto& [b, n] : match.matched) {
    LaunchHistory history{base[b].key, {}, now[n].summary.median};
    const std::string key = match_key(base[b].key, match.ignore_backend);
    for (const auto& points : earlier_by_key)
      if (const auto found = points.find(key); found != points.end())
        history.medians_s.push_back(found->second->summary.median);
    history.medians_s.push_back(base[b].summary.median);
    histories.push_back(std::move(history));
  }
  const std::vector<HistoryVerdict> verdicts = judge_against_history(histories, options);
  HistoryComparison comparison;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const HistoryVerdict& v = verdicts[i];
    const auto [b, n] = match.matched[i];
    RatioResult r;
    r.base_samples = base[b].summary.samples;
    r.new_samples = now[n].summary.samples;
    r.new_median_s = histories[i].tonight_s;
    r.base_median_s = v.ratio > 0 ? r.new_median_s / v.ratio : kNoValue;  // the window's level
    r.ratio = v.ratio;
    r.ratio_ci = v.ratio_ci;
    r.run_noise = std::isfinite(v.ratio_ci.high) ? std::log(v.ratio_ci.high / v.ratio) : 0;
    r.baselines = histories[i].medians_s.size();
    r.launches = v.launches;
    r.p_value = v.p_value;
    r.verdict = v.verdict;
    r.reason = v.reason;
    comparison.points.push_back({base[b].key, r});
  }
  comparison.alerts = slower_alerts(histories, verdicts);
  return comparison;
}

std::vector<std::vector<std::size_t>> slower_alerts(std::span<const LaunchHistory> points,
                                                    std::span<const HistoryVerdict> verdicts) {
  std::map<PointKey, std::vector<std::size_t>> curves;  // judged points, by curve
  for (std::size_t i = 0; i < points.size(); ++i)
    if (std::isfinite(verdicts[i].ratio_ci.low)) curves[curve_key(points[i].key)].push_back(i);
  std::vector<std::vector<std::size_t>> alerts;
  for (auto& [curve, members] : curves) {
    std::ranges::sort(members, {}, [&](std::size_t i) { return points[i].key.size_bytes; });
    std::vector<std::size_t> run;
    const auto close_run = [&] {
      if (run.size() >= 2) alerts.push_back(run);
      run.clear();
    };
    for (std::size_t i : members) {
      if (verdicts[i].verdict == Change::slower)
        run.push_back(i);
      else if (!run.empty())
        close_run();
    }
    if (!run.empty()) close_run();
  }
  return alerts;
}

}  // namespace collbench
