#include "harness/compare/compare_points.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_map>

#include <fmt/format.h>

#include "harness/plan/point_identity.h"
#include "harness/stats/no_value.h"
#include "harness/stats/resampled_median.h"
#include "harness/stats/rounds.h"
#include "harness/stats/sampling_distributions.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// numpy.median of sorted values.
double median_of_sorted(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  return (sorted[(n - 1) / 2] + sorted[n / 2]) / 2;
}

// One side, ready for resampling: sorted, thinned beyond `cap`.
std::vector<double> resampling_side(std::span<const double> samples, std::size_t cap) {
  const std::size_t step = samples.size() > cap ? (samples.size() + cap - 1) / cap : 1;
  std::vector<double> sorted;
  for (std::size_t i = 0; i < samples.size(); i += step) sorted.push_back(samples[i]);
  std::ranges::sort(sorted);
  return sorted;
}

double median_of(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::ranges::sort(sorted);
  return median_of_sorted(sorted);
}

}  // namespace

std::string_view name(Change verdict) {
  switch (verdict) {
    case Change::same: return "SAME";
    case Change::faster: return "FASTER";
    case Change::slower: return "SLOWER";
    case Change::noisy: return "NOISY";
    case Change::unsure: break;
  }
  return "UNSURE";
}

int severity(Change verdict) {
  switch (verdict) {
    case Change::same:
    case Change::faster: return 0;
    case Change::slower: return 2;
    case Change::noisy:
    case Change::unsure: break;
  }
  return 1;
}

Change verdict_of_interval(const Interval& ratio, double threshold, double run_noise) {
  if (!(ratio.low > 0) || !std::isfinite(ratio.high) || ratio.high < ratio.low)
    return Change::unsure;
  const double slower = 1 + threshold;
  const double faster = 1 / (1 + threshold);
  if (ratio.low > slower) return Change::slower;
  if (ratio.high < faster) return Change::faster;
  if (run_noise > std::log1p(threshold)) return Change::noisy;
  if (ratio.low >= faster && ratio.high <= slower) return Change::same;
  return Change::unsure;
}

double run_noise_halfwidth(std::span<const double> base_round_medians,
                           std::span<const double> new_round_medians, double confidence) {
  const double p = 0.5 + confidence / 2;
  const LogSpread base = log_spread(base_round_medians), now = log_spread(new_round_medians);
  const double nb = static_cast<double>(base.count), nn = static_cast<double>(now.count);
  if (base.count >= 2 && now.count >= 2) {
    const double vb = base.variance / nb, vn = now.variance / nn;
    if (!(vb + vn > 0)) return 0;
    const double df = (vb + vn) * (vb + vn) / (vb * vb / (nb - 1) + vn * vn / (nn - 1));
    return student_t_quantile(p, df) * std::sqrt(vb + vn);
  }
  const LogSpread& seen = base.count >= 2 ? base : now;
  if (seen.count < 2) return 0;
  return student_t_quantile(p, static_cast<double>(seen.count) - 1) *
         std::sqrt(seen.variance * (1 / nb + 1 / nn));
}

RatioResult compare_samples(std::span<const double> base, std::span<const double> now,
                            const CompareOptions& options, std::uint64_t stream) {
  RatioResult result;
  result.base_samples = base.size();
  result.new_samples = now.size();
  result.ratio_ci = {kNoValue, kNoValue};
  result.base_median_s = base.empty() ? kNoValue : median_of(base);
  result.new_median_s = now.empty() ? kNoValue : median_of(now);
  result.ratio = result.base_median_s > 0 && result.new_median_s > 0
                     ? result.new_median_s / result.base_median_s
                     : kNoValue;
  const std::size_t fewest = std::min(base.size(), now.size());
  if (fewest < options.min_samples) {
    result.reason = fmt::format("too few samples ({} base, {} new; at least {} each needed)",
                                base.size(), now.size(), options.min_samples);
    return result;
  }
  const auto not_positive = [](double t) { return !(t > 0) || !std::isfinite(t); };
  if (std::ranges::any_of(base, not_positive) || std::ranges::any_of(now, not_positive)) {
    result.reason = "a sample time is zero, negative or not finite";
    return result;
  }

  std::mt19937_64 engine(splitmix64(options.seed ^ splitmix64(stream)));
  const std::size_t cap = std::max<std::size_t>(options.max_bootstrap_samples, options.min_samples);
  const std::vector<double> base_side = resampling_side(base, cap);
  const std::vector<double> new_side = resampling_side(now, cap);
  std::vector<double> ratios(static_cast<std::size_t>(std::max(options.replicates, 1)));
  for (double& ratio : ratios) {
    const double b = resampled_median(base_side, engine);
    ratio = resampled_median(new_side, engine) / b;
  }
  std::ranges::sort(ratios);
  // The replicates' spread around their own median, carried to the estimate. A median's
  // bootstrap distribution is lumpy and the resampled sides may be thinned (the cap), so the raw
  // percentiles can miss the estimate itself (0.965 [0.967, 0.972]); centred, it lies inside.
  const double tail = (1 - options.confidence) / 2 * 100;
  const double centre = percentile_of_sorted(ratios, 50);
  result.ratio_ci = {result.ratio * percentile_of_sorted(ratios, tail) / centre,
                     result.ratio * percentile_of_sorted(ratios, 100 - tail) / centre};
  result.verdict = verdict_of_interval(result.ratio_ci, options.threshold);
  return result;
}

std::string match_key(const PointKey& key, bool ignore_backend) {
  PointKey matched = key;
  if (ignore_backend) matched.backend.clear();
  return key_json(matched, true).dump();
}

PointMatch match_points(std::span<const PointResult> base, std::span<const PointResult> now,
                        bool ignore_backend) {
  std::unordered_map<std::string, std::vector<std::size_t>> waiting;  // new indexes, reversed
  for (std::size_t i = now.size(); i-- > 0;)
    waiting[match_key(now[i].key, ignore_backend)].push_back(i);
  PointMatch match;
  match.ignore_backend = ignore_backend;
  std::vector<bool> taken(now.size(), false);
  for (std::size_t i = 0; i < base.size(); ++i) {
    auto found = waiting.find(match_key(base[i].key, ignore_backend));
    if (found == waiting.end() || found->second.empty()) {
      match.base_only.push_back(i);
      continue;
    }
    match.matched.emplace_back(i, found->second.back());
    taken[found->second.back()] = true;
    found->second.pop_back();
  }
  for (std::size_t i = 0; i < now.size(); ++i)
    if (!taken[i]) match.new_only.push_back(i);
  return match;
}

namespace {

// A file that keeps only some of a point's samples (--keep-samples capped) holds its median
// over all of them: that is the estimate, and the interval, the kept samples' (wider than all of
// them would give), keeps its width around it.
void centre_on_stored_medians(RatioResult& r, const PointResult& before, const PointResult& after) {
  if (!(before.summary.median > 0 && after.summary.median > 0 && r.ratio > 0)) return;
  const double stored = after.summary.median / before.summary.median;
  r.ratio_ci = {r.ratio_ci.low * stored / r.ratio, r.ratio_ci.high * stored / r.ratio};
  r.ratio = stored;
  r.base_median_s = before.summary.median;
  r.new_median_s = after.summary.median;
  r.base_samples = before.summary.samples;
  r.new_samples = after.summary.samples;
}

}  // namespace

std::vector<PointComparison> compare_points(std::span<const PointResult> base,
                                            std::span<const PointResult> now,
                                            const PointMatch& match,
                                            const CompareOptions& options) {
  std::vector<PointComparison> comparisons;
  comparisons.reserve(match.matched.size());
  for (const auto& [b, n] : match.matched) {
    const PointResult& before = base[b];
    const PointResult& after = now[n];
    PointComparison comparison{before.key, {}};
    const bool have_samples = before.samples.sample_count() > 0 && after.samples.sample_count() > 0;
    if (have_samples) {
      const std::vector<double> base_times = slowest_rank_times(before.samples);
      const std::vector<double> new_times = slowest_rank_times(after.samples);
      RatioResult& r = comparison.result;
      r = compare_samples(base_times, new_times, options, fnv1a(match_key(before.key, true)));
      if (before.samples.sample_count() < before.summary.samples ||
          after.samples.sample_count() < after.summary.samples)
        centre_on_stored_medians(r, before, after);
      const auto base_rounds = medians_of(round_estimates(base_times, before.samples.round_starts));
      const auto new_rounds = medians_of(round_estimates(new_times, after.samples.round_starts));
      r.base_rounds = base_rounds.size();
      r.new_rounds = new_rounds.size();
      r.run_noise = run_noise_halfwidth(base_rounds, new_rounds, options.confidence);
      if (r.reason.empty() && std::isfinite(r.ratio)) {
        r.ratio_ci = {std::min(r.ratio_ci.low, r.ratio * std::exp(-r.run_noise)),
                      std::max(r.ratio_ci.high, r.ratio * std::exp(r.run_noise))};
        r.verdict = verdict_of_interval(r.ratio_ci, options.threshold, r.run_noise);
      }
    } else {
      RatioResult& r = comparison.result;
      r.base_samples = before.summary.samples;
      r.new_samples = after.summary.samples;
      r.base_median_s = before.summary.median;
      r.new_median_s = after.summary.median;
      r.ratio = r.base_median_s > 0 ? r.new_median_s / r.base_median_s : kNoValue;
      r.ratio_ci = {kNoValue, kNoValue};
      r.reason = fmt::format("no raw samples in {}",
                             before.samples.sample_count() ? "NEW" : "BASE");
    }
    comparisons.push_back(std::move(comparison));
  }
  return comparisons;
}

}  // namespace collbench
