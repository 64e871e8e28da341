#include "curve_fits.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/fit/regime_step.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

constexpr std::size_t kMinSizesToFit = 4;
// A headline is trusted only with this many sizes and a misfit this small (median relative
// error of a size predicted by the fit made without it).
constexpr std::size_t kMinSizesToTrust = 6;
constexpr double kMaxTrustedMisfit = 0.05;

struct CurveData {
  PointKey key;
  std::vector<const PointResult*> points;  // ascending size
};

std::vector<CurveData> group_curves(const std::vector<PointResult>& points) {
  std::vector<CurveData> curves;
  for (const auto& point : points) {
    auto found = std::find_if(curves.begin(), curves.end(),
                              [&](const CurveData& c) { return c.key == curve_key(point.key); });
    if (found == curves.end()) found = curves.insert(curves.end(), {curve_key(point.key), {}});
    found->points.push_back(&point);
  }
  for (auto& curve : curves)
    std::sort(curve.points.begin(), curve.points.end(),
              [](auto* a, auto* b) { return a->key.size_bytes < b->key.size_bytes; });
  return curves;
}

void flag_parameter(std::vector<std::string>& flags, const char* name, double value,
                    const Interval& ci) {
  if (auto doubt = parameter_doubt(name, value, ci)) flags.push_back(std::move(*doubt));
}

SegmentReport report_segment(const Segment& segment, const SegmentIntervals& intervals,
                             const std::vector<double>& sizes) {
  SegmentReport report;
  report.min_size_bytes = static_cast<std::size_t>(sizes[segment.first]);
  report.max_size_bytes = static_cast<std::size_t>(sizes[segment.last]);
  report.sizes = segment.last - segment.first + 1;
  report.alpha_s = segment.fit.alpha_s;
  report.beta_s_per_byte = segment.fit.beta_s_per_byte;
  report.alpha_ci = intervals.alpha_s;
  report.beta_ci = intervals.beta_s_per_byte;
  report.half_size_bytes = half_size_of(report.alpha_s, report.beta_s_per_byte);
  report.half_size_ci = intervals.half_size_bytes;
  report.rms_rel_error = segment.fit.rms_rel_error;
  report.max_rel_error = segment.fit.max_rel_error;
  report.alpha_at_bound = segment.fit.alpha_at_bound;
  if (report.alpha_at_bound)
    report.flags.push_back("alpha at its bound 0 (bandwidth-bound range)");
  else
    flag_parameter(report.flags, "alpha", report.alpha_s, report.alpha_ci);
  flag_parameter(report.flags, "beta", report.beta_s_per_byte, report.beta_ci);
  return report;
}

Headline headline_of(const std::vector<SegmentReport>& segments, const SegmentIntervals& intervals,
                     double misfit, std::size_t sizes, const std::optional<RegimeStep>& step) {
  Headline headline;
  headline.alpha_s = segments.front().alpha_s;
  headline.alpha_ci = intervals.alpha_s;
  headline.beta_s_per_byte = segments.back().beta_s_per_byte;
  headline.beta_ci = intervals.beta_s_per_byte;
  headline.half_size_bytes = half_size_of(headline.alpha_s, headline.beta_s_per_byte);
  headline.half_size_ci = intervals.half_size_bytes;
  headline.misfit = misfit;
  // The bandwidth falls where a later regime is slower than the best before it, beyond both
  // intervals.
  const SegmentReport* fastest = &segments.front();
  for (const SegmentReport& segment : segments) {
    if (segment.beta_ci.low > fastest->beta_ci.high && !headline.bandwidth_falls_at_bytes) {
      headline.bandwidth_falls_at_bytes = segment.min_size_bytes;
      headline.peak_beta_s_per_byte = fastest->beta_s_per_byte;
    }
    if (segment.beta_s_per_byte < fastest->beta_s_per_byte) fastest = &segment;
  }
  if (sizes < kMinSizesToTrust)
    headline.flags.push_back(fmt::format("too few sizes to trust ({} < {})", sizes, kMinSizesToTrust));
  if (!(misfit <= kMaxTrustedMisfit))
    headline.flags.push_back(
        fmt::format("misfit {:.1f}% above {:.0f}%{}", 100 * misfit, 100 * kMaxTrustedMisfit,
                    step ? ": " + describe(*step) : ""));
  if (segments.front().alpha_at_bound)
    headline.flags.push_back("alpha at its bound 0: no latency term measurable");
  else
    flag_parameter(headline.flags, "alpha", headline.alpha_s, headline.alpha_ci);
  flag_parameter(headline.flags, "beta", headline.beta_s_per_byte, headline.beta_ci);
  return headline;
}

std::optional<double> holdout_error(const std::vector<double>& sizes,
                                    const std::vector<double>& medians) {
  std::vector<double> fit_sizes, fit_times, errors;
  for (std::size_t i = 0; i < sizes.size(); i += 2) {
    fit_sizes.push_back(sizes[i]);
    fit_times.push_back(medians[i]);
  }
  if (fit_sizes.size() < kMinSizesToFit) return std::nullopt;
  const PiecewiseFit fit = fit_piecewise(fit_sizes, fit_times);
  for (std::size_t i = 1; i < sizes.size(); i += 2)
    errors.push_back(std::abs(predict(fit, fit_sizes, sizes[i]) - medians[i]) / medians[i]);
  return summarize(errors).median;
}

CurveFit fit_curve(const CurveData& data, const FitOptions& options) {
  CurveFit curve;
  curve.key = data.key;
  curve.sizes = data.points.size();
  curve.min_size_bytes = data.points.front()->key.size_bytes;
  curve.max_size_bytes = data.points.back()->key.size_bytes;
  if (curve.sizes < kMinSizesToFit) {
    curve.flags.push_back(fmt::format("too few sizes ({} < {})", curve.sizes, kMinSizesToFit));
    return curve;
  }
  std::vector<double> sizes, medians;
  std::vector<std::size_t> bytes;
  std::vector<Interval> median_intervals;
  std::vector<std::vector<double>> samples;
  for (const auto* point : data.points) {
    sizes.push_back(static_cast<double>(point->key.size_bytes));
    bytes.push_back(point->key.size_bytes);
    medians.push_back(point->summary.median);
    median_intervals.push_back({point->summary.ci_low, point->summary.ci_high});
    samples.push_back(slowest_rank_times(point->samples));
  }
  const PiecewiseFit fit = fit_piecewise(sizes, medians);
  const CurveIntervals intervals =
      bootstrap_intervals(fit, sizes, samples, options.bootstrap_replicates, options.seed);
  for (std::size_t k = 0; k < fit.segments.size(); ++k)
    curve.segments.push_back(report_segment(fit.segments[k], intervals.segments[k], sizes));
  curve.headline = headline_of(curve.segments, intervals.headline, fit.misfit(), curve.sizes,
                               steepest_regime_step(bytes, medians, median_intervals));
  if (options.holdout) curve.holdout_median_rel_error = holdout_error(sizes, medians);
  return curve;
}

void fit_families(const std::vector<PointResult>& points, const FitOptions& options,
                  ModelReport& report) {
  for (const RankCurves& group : rank_curves(points)) {
    if (group.curves.size() < 2 || !has_rank_families(group.key.collective)) continue;
    FamilyReport family{.key = group.key, .rank_counts = {}, .families = {}};
    double largest_size = 0;
    for (const RankCurve& curve : group.curves) {
      family.rank_counts.push_back(curve.nranks);
      largest_size = std::max(largest_size, curve.sizes.back());
    }
    family.families = fit_rank_families(family.key.collective, group.curves);
    const std::string_view reference = reference_family(family.key.collective).name;
    const auto ring = std::find_if(family.families.begin(), family.families.end(),
                                   [&](const FamilyFit& f) { return f.family.name == reference; });
    const std::vector<double> sizes = options.crossover_sizes.empty()
                                          ? std::vector<double>{25.0 * (1 << 20), largest_size}
                                          : options.crossover_sizes;
    const std::vector<Interval> intervals = ring_crossover_intervals(
        family.key.collective, group.curves, sizes, options.bootstrap_replicates, options.seed);
    for (std::size_t k = 0; k < sizes.size(); ++k)
      report.crossovers.push_back({family.key, *ring, sizes[k],
                                   ring_crossover_ranks(*ring, sizes[k]), intervals[k],
                                   group.max_ranks()});
    report.families.push_back(std::move(family));
  }
}

}  // namespace

PointKey rank_curve_key(const PointKey& point) {
  PointKey key = curve_key(point);
  key.nranks = 0;
  return key;
}

std::vector<RankCurves> rank_curves(const std::vector<PointResult>& points) {
  std::vector<RankCurves> groups;
  for (const CurveData& data : group_curves(points)) {
    const PointKey key = rank_curve_key(data.key);
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const RankCurves& g) { return g.key == key; });
    if (group == groups.end()) group = groups.insert(groups.end(), {key, {}});
    RankCurve curve{data.key.nranks, {}, {}};
    for (const PointResult* point : data.points) {
      curve.sizes.push_back(static_cast<double>(point->key.size_bytes));
      curve.times.push_back(point->summary.median);
    }
    group->curves.push_back(std::move(curve));
  }
  for (RankCurves& group : groups)
    std::ranges::sort(group.curves, {}, &RankCurve::nranks);
  return groups;
}

PointKey curve_key(const PointKey& point) {
  PointKey key = point;
  key.size_bytes = 0;
  key.count = 0;
  return key;
}

std::optional<std::string> parameter_doubt(const char* name, double value, const Interval& ci) {
  if (value <= 0 || ci.low <= 0) return fmt::format("{} not significant", name);
  if (ci.high - ci.low > value) return fmt::format("{} interval wider than {}", name, name);
  if (value < ci.low || value > ci.high)
    return fmt::format("{} outside its interval: breakpoints unstable", name);
  return std::nullopt;
}

SegmentReport headline_segment(const CurveFit& curve) {
  const Headline& headline = curve.headline.value();
  SegmentReport segment;
  segment.min_size_bytes = curve.min_size_bytes;
  segment.max_size_bytes = curve.max_size_bytes;
  segment.sizes = curve.sizes;
  segment.alpha_s = headline.alpha_s;
  segment.alpha_ci = headline.alpha_ci;
  segment.beta_s_per_byte = headline.beta_s_per_byte;
  segment.beta_ci = headline.beta_ci;
  segment.half_size_bytes = headline.half_size_bytes;
  segment.half_size_ci = headline.half_size_ci;
  segment.alpha_at_bound = curve.segments.front().alpha_at_bound;
  segment.flags = headline.flags;
  return segment;
}

ModelReport fit_models(const std::vector<PointResult>& points, const FitOptions& options) {
  ModelReport report;
  const auto data = group_curves(points);
  for (const auto& curve : data) report.curves.push_back(fit_curve(curve, options));
  fit_families(points, options, report);
  return report;
}

}  // namespace collbench
