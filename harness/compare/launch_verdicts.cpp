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
    if (point.unjudged.empty() && point.own_df > 0) {
      auto& [variances, df] = spreads[curve_key(point.key)];
      variances.push_back(point.own_variance);
      df.push_back(point.own_df);
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

// A judged point's change (log) and the variances of its error's two parts, on the change's
// scale (se_per_sd² times the launches'): its own, moderated, and its curve's shared one.
struct Estimate {
  std::size_t index = 0;  // into the points
  double change = 0;
  double own = 0;
  double own_df = 0;
  SharedEffect shared;
  double scale = 1;  // se_per_sd²
};

// The change's variance and degrees of freedom: the shared part's and the point's own, added
// (Welch-Satterthwaite).
std::pair<double, double> combined(const Estimate& e) {
  const double own_df = std::min(e.own_df, kNormalDf);
  const double shared = e.shared.variance * e.scale;
  if (!(e.shared.df > 0 && shared > 0)) return {e.own, own_df};
  const double total = shared + e.own;
  const double parts = shared * shared / e.shared.df + (e.own > 0 ? e.own * e.own / own_df : 0);
  return {total, std::min(total * total / parts, kNormalDf)};
}

// Each point's change estimated with its curve's (empirical Bayes, a random effect per point,
// Morris 1983): a point's true change is the curve's plus a deviation of its own with variance
// σ_u², seen through the point's own error; σ_u² by DerSimonian and Laird's moments. Where the
// curve changed alike at every size, σ_u² is about 0 and every point takes the curve's change,
// whose own error is its points' together, far below one point's; where the points differ beyond
// their errors (a change at some sizes only, a protocol's switch), σ_u² is large and each keeps
// its own. The part of the error every point shares is not lent: it stays in each.
void lend_curve(std::span<Estimate> curve) {
  if (curve.size() < 3) return;
  // A point whose launches agree to the last bit (a variance of 1e-310) weighs much, not
  // infinitely: no variance counts below a log spread of 1e-12, far under any timer's step.
  const auto own = [](const Estimate& e) { return std::max(e.own, 1e-24); };
  double weights = 0, squared_weights = 0, weighted = 0;
  for (const Estimate& e : curve) {
    weights += 1 / own(e);
    squared_weights += 1 / (own(e) * own(e));
    weighted += e.change / own(e);
  }
  // Cochran's Q about the fixed-effect mean, and what it would be were every point's true change
  // the curve's. Each own variance is estimated, so each term is a squared Student t on its
  // degrees of freedom, of mean df/(df - 2), not 1: DerSimonian and Laird's k - 1 would read
  // that excess as differences between points and lend too little. A t of 2 df or fewer has no
  // variance; its point counts 1, as with a known variance.
  double q = 0, expected_q = 0;
  for (const Estimate& e : curve) {
    q += std::pow(e.change - weighted / weights, 2) / own(e);
    const double df = std::min(e.own_df, kNormalDf);
    expected_q += (1 - 1 / own(e) / weights) * (df > 2 ? df / (df - 2) : 1);
  }
  const double spread = weights - squared_weights / weights;
  const double between = spread > 0 ? std::max(0.0, (q - expected_q) / spread) : 0.0;
  double random_weights = 0, random_weighted = 0;
  for (const Estimate& e : curve) {
    random_weights += 1 / (own(e) + between);
    random_weighted += e.change / (own(e) + between);
  }
  const double centre = random_weighted / random_weights;
  for (Estimate& e : curve) {
    const double pull = own(e) / (own(e) + between);  // toward the curve's change
    e.change = centre + (1 - pull) * (e.change - centre);
    e.own = (1 - pull) * own(e) + pull * pull / random_weights;
  }
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

std::vector<LaunchVerdict> judge_launches(std::span<const LaunchEvidence> points,
                                          const CompareOptions& options) {
  std::vector<LaunchVerdict> verdicts(points.size());
  const auto priors = curve_priors(points);
  std::map<PointKey, std::vector<Estimate>> curves;  // the judged points, by curve
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LaunchEvidence& point = points[i];
    LaunchVerdict& v = verdicts[i];
    v.launches = point.launches;
    v.ratio_ci = {kNoValue, kNoValue};
    v.ratio = v.observed_ratio = std::exp(point.log_change);
    if (!point.unjudged.empty()) {
      v.reason = point.unjudged;
      continue;
    }
    if (!std::isfinite(point.log_change)) {
      v.reason = "a median is zero or missing";
      continue;
    }
    const auto prior = priors.find(curve_key(point.key));
    if (prior == priors.end()) {
      v.reason = "no point of its curve has a spread between launches";
      continue;
    }
    const ModeratedVariance own = moderate(prior->second, point.own_variance, point.own_df);
    const double scale = point.se_per_sd * point.se_per_sd;
    if (!(own.variance + point.shared.variance > 0 && scale > 0)) {
      v.reason = "the launches agree exactly: no spread to judge against";
      continue;
    }
    curves[curve_key(point.key)].push_back(
        {i, point.log_change, own.variance * scale, own.df, point.shared, scale});
  }

  std::vector<std::size_t> judged;
  std::vector<double> p_values;
  for (auto& [curve, estimates] : curves) {
    lend_curve(estimates);
    for (const Estimate& e : estimates) {
      LaunchVerdict& v = verdicts[e.index];
      const auto [variance, df] = combined(e);
      judge_change(v, e.change, std::sqrt(variance), df, options);
      judged.push_back(e.index);
      p_values.push_back(v.p_value);
    }
  }

  const std::vector<bool> changed = benjamini_hochberg(p_values, 1 - options.confidence);
  for (std::size_t j = 0; j < judged.size(); ++j) {
    LaunchVerdict& v = verdicts[judged[j]];
    v.verdict = verdict_of(changed[j], v.ratio, v.ratio_ci, options.threshold);
  }
  return verdicts;
}

Change verdict_of(bool beyond_threshold, double ratio, const Interval& ratio_ci,
                  double threshold) {
  const double slower = 1 + threshold, faster = 1 / (1 + threshold);
  if (beyond_threshold) return ratio > 1 ? Change::slower : Change::faster;
  if (ratio_ci.low >= faster && ratio_ci.high <= slower) return Change::same;
  if (ratio_ci.high / ratio > slower) return Change::noisy;  // wider than the band either side
  return Change::unsure;
}

void judge_change(LaunchVerdict& v, double change, double se, double df,
                  const CompareOptions& options) {
  const double half_width = student_t_quantile(0.5 + options.confidence / 2, df) * se;
  v.ratio = std::exp(change);
  v.ratio_ci = {v.ratio * std::exp(-half_width), v.ratio * std::exp(half_width)};
  // Against |change| <= log(1 + t): at its edge only the near tail can reject, so one tail.
  v.p_value = 1 - student_t_cdf((std::abs(change) - std::log1p(options.threshold)) / se, df);
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
          grouped_sizes(keys, verdicts, Change::faster), std::nullopt};
}

}  // namespace collbench
