#include "harness/compare/launch_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "harness/fit/curve_fits.h"
#include "harness/stats/false_discovery.h"
#include "harness/stats/moderated_variance.h"
#include "harness/stats/sampling_distributions.h"

namespace collbench {
namespace {

// Beyond this many degrees of freedom Student's t is the normal distribution to the digits
// that matter here.
constexpr double kNormalDf = 1e6;

// Each curve's prior, from its points with a spread.
std::map<PointKey, VariancePrior> curve_priors(std::span<const LaunchEvidence> points) {
  std::map<PointKey, std::pair<std::vector<double>, std::vector<double>>> spreads;
  for (const auto& point : points)
    if (point.unjudged.empty() && point.launches.count >= 2) {
      auto& [variances, df] = spreads[curve_key(point.key)];
      variances.push_back(point.launches.variance);
      df.push_back(static_cast<double>(point.launches.count - 1));
    }
  std::map<PointKey, VariancePrior> priors;
  for (const auto& [curve, spread] : spreads)
    priors[curve] = fit_variance_prior(spread.first, spread.second);
  return priors;
}

double median(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t n = values.size();
  return (values[(n - 1) / 2] + values[n / 2]) / 2;
}

// The change's variance and degrees of freedom: the shared part's and the point's own, added
// (Welch-Satterthwaite).
std::pair<double, double> combined(const SharedEffect& shared, const ModeratedVariance& own) {
  const double own_df = std::min(own.df, kNormalDf);
  if (!(shared.df > 0 && shared.variance > 0)) return {own.variance, own_df};
  const double total = shared.variance + own.variance;
  const double parts = shared.variance * shared.variance / shared.df +
                       (own.variance > 0 ? own.variance * own.variance / own_df : 0);
  return {total, std::min(total * total / parts, kNormalDf)};
}

}  // namespace

std::vector<double> launch_shifts(std::span<const std::vector<double>> logs) {
  std::size_t launches = 0;
  for (const auto& point : logs) launches = std::max(launches, point.size());
  std::vector<std::vector<double>> deviations(launches);
  for (const auto& point : logs) {
    double sum = 0;
    std::size_t count = 0;
    for (double log : point) {
      if (!std::isfinite(log)) continue;
      sum += log;
      ++count;
    }
    for (std::size_t k = 0; k < point.size(); ++k)
      if (std::isfinite(point[k])) deviations[k].push_back(point[k] - sum / count);
  }
  std::vector<double> shifts;
  for (auto& launch : deviations)
    shifts.push_back(launch.empty() ? kNoValue : median(std::move(launch)));
  return shifts;
}

SharedEffect shared_effect(std::span<const double> shifts) {
  std::vector<double> finite;
  for (double shift : shifts)
    if (std::isfinite(shift)) finite.push_back(shift);
  if (finite.size() < 2) return {};
  return {spread_of_logs(finite).variance, static_cast<double>(finite.size() - 1)};
}

SharedEffect successive_effect(std::span<const double> shifts) {
  double squares = 0;
  std::size_t differences = 0;
  double previous = kNoValue;
  for (double shift : shifts) {
    if (!std::isfinite(shift)) continue;
    if (std::isfinite(previous)) {
      squares += (shift - previous) * (shift - previous);
      ++differences;
    }
    previous = shift;
  }
  if (differences < 2) return {};
  const double n = static_cast<double>(differences);
  return {squares / (2 * n), 2 * n / 3};
}

std::vector<LaunchVerdict> judge_launches(std::span<const LaunchEvidence> points,
                                          const CompareOptions& options) {
  std::vector<LaunchVerdict> verdicts(points.size());
  const auto priors = curve_priors(points);
  const double two_sided = 0.5 + options.confidence / 2;
  std::vector<std::size_t> judged;
  std::vector<double> p_values;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LaunchEvidence& point = points[i];
    LaunchVerdict& v = verdicts[i];
    v.launches = point.launches.count;
    v.ratio_ci = {kNoValue, kNoValue};
    v.ratio = std::exp(point.log_change);
    if (!point.unjudged.empty()) {
      v.reason = point.unjudged;
      continue;
    }
    if (!std::isfinite(point.log_change)) {
      v.reason = "a median is zero or missing";
      continue;
    }
    const ModeratedVariance own = moderate(priors.at(curve_key(point.key)), point.launches.variance,
                                           static_cast<double>(point.launches.count - 1));
    const auto [variance, df] = combined(point.shared, own);
    const double se = std::sqrt(variance) * point.se_per_sd;
    if (!(se > 0)) {
      v.reason = "the launches agree exactly: no spread to judge against";
      continue;
    }
    const double half_width = student_t_quantile(two_sided, df) * se;
    v.ratio_ci = {v.ratio * std::exp(-half_width), v.ratio * std::exp(half_width)};
    v.p_value = 2 * (1 - student_t_cdf(std::abs(point.log_change) / se, df));
    judged.push_back(i);
    p_values.push_back(v.p_value);
  }

  const std::vector<bool> changed = benjamini_hochberg(p_values, 1 - options.confidence);
  const double slower = 1 + options.threshold, faster = 1 / (1 + options.threshold);
  for (std::size_t j = 0; j < judged.size(); ++j) {
    LaunchVerdict& v = verdicts[judged[j]];
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

std::vector<std::vector<std::size_t>> grouped_sizes(std::span<const PointKey> keys,
                                                    std::span<const LaunchVerdict> verdicts,
                                                    Change which) {
  std::map<PointKey, std::vector<std::size_t>> curves;  // judged points, by curve
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (std::isfinite(verdicts[i].ratio_ci.low)) curves[curve_key(keys[i])].push_back(i);
  std::vector<std::vector<std::size_t>> groups;
  for (auto& [curve, members] : curves) {
    std::ranges::sort(members, {}, [&](std::size_t i) { return keys[i].size_bytes; });
    std::vector<std::size_t> run;
    const auto close_run = [&] {
      if (run.size() >= 2) groups.push_back(run);
      run.clear();
    };
    for (std::size_t i : members) {
      if (verdicts[i].verdict == which)
        run.push_back(i);
      else
        close_run();
    }
    close_run();
  }
  return groups;
}

LaunchComparison launch_comparison(std::vector<PointComparison> results,
                                   std::span<const LaunchVerdict> verdicts) {
  std::vector<PointKey> keys;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const LaunchVerdict& v = verdicts[i];
    RatioResult& r = results[i].result;
    r.ratio = v.ratio;
    r.ratio_ci = v.ratio_ci;
    r.run_noise = std::isfinite(v.ratio_ci.high) ? std::log(v.ratio_ci.high / v.ratio) : 0;
    r.launches = v.launches;
    r.p_value = v.p_value;
    r.verdict = v.verdict;
    r.reason = v.reason;
    keys.push_back(results[i].key);
  }
  return {std::move(results), grouped_sizes(keys, verdicts, Change::slower),
          grouped_sizes(keys, verdicts, Change::faster)};
}

}  // namespace collbench
