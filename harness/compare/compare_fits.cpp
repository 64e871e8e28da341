#include "harness/compare/compare_fits.h"

#include <cmath>

#include <fmt/format.h>

#include "harness/stats/no_value.h"

namespace collbench {
namespace {

// A flag names the parameter it is about ("negative alpha", "beta not significant", ...); one
// that names neither ("too few sizes") is about both.
bool usable(const SegmentReport& segment, FitParameter parameter) {
  const std::string_view own = name(parameter);
  const std::string_view other = parameter == FitParameter::alpha ? "beta" : "alpha";
  for (const auto& flag : segment.flags)
    if (flag.find(own) != std::string::npos || flag.find(other) == std::string::npos) return false;
  return true;
}

std::optional<FitSide> side_of(const CurveFit& curve, FitParameter parameter) {
  if (curve.segments.empty()) return std::nullopt;
  // Latency from the small sizes, bandwidth from the large ones: the headline, or in files
  // fitted before it existed the first and last segments.
  const SegmentReport segment =
      curve.headline ? headline_segment(curve)
      : parameter == FitParameter::alpha ? curve.segments.front()
                                          : curve.segments.back();
  FitSide side;
  side.value = parameter == FitParameter::alpha ? segment.alpha_s : segment.beta_s_per_byte;
  side.ci = parameter == FitParameter::alpha ? segment.alpha_ci : segment.beta_ci;
  side.min_size_bytes = segment.min_size_bytes;
  side.max_size_bytes = segment.max_size_bytes;
  side.trusted = curve.flags.empty() && usable(segment, parameter) && side.value > 0 &&
                 side.ci.low > 0 && std::isfinite(side.ci.high);
  return side;
}

FitComparison compare_parameter(const CurveFit& base, const CurveFit& now,
                                FitParameter parameter, double threshold) {
  FitComparison comparison;
  comparison.key = base.key;
  comparison.parameter = parameter;
  comparison.ratio = kNoValue;
  comparison.ratio_ci = {kNoValue, kNoValue};
  const auto before = side_of(base, parameter);
  const auto after = side_of(now, parameter);
  if (before) comparison.base = *before;
  if (after) comparison.now = *after;
  if (!before || !after) {
    const CurveFit& unfitted = !before ? base : now;
    comparison.reason = fmt::format("not fitted in {}{}", !before ? "BASE" : "NEW",
                                    unfitted.flags.empty()
                                        ? std::string()
                                        : fmt::format(" ({})", fmt::join(unfitted.flags, "; ")));
    return comparison;
  }
  if (before->value > 0 && after->value > 0) comparison.ratio = after->value / before->value;
  if (!before->trusted || !after->trusted) {
    comparison.reason = fmt::format("{} not trusted in {}", name(parameter),
                                    !before->trusted && !after->trusted ? "either file"
                                    : !before->trusted                   ? "BASE"
                                                                         : "NEW");
    return comparison;
  }
  comparison.ratio_ci = {after->ci.low / before->ci.high, after->ci.high / before->ci.low};
  comparison.verdict = verdict_of_interval(comparison.ratio_ci, threshold);
  return comparison;
}

PointKey curve_match_key(PointKey key, bool ignore_backend) {
  if (ignore_backend) key.backend.clear();
  return key;
}

}  // namespace

std::string_view name(FitParameter parameter) {
  return parameter == FitParameter::alpha ? "alpha" : "beta";
}

FitComparisons compare_fits(const ModelReport& base, const ModelReport& now, double threshold,
                            bool ignore_backend) {
  FitComparisons result;
  std::vector<bool> taken(now.curves.size(), false);
  for (const CurveFit& before : base.curves) {
    const PointKey key = curve_match_key(before.key, ignore_backend);
    std::size_t found = now.curves.size();
    for (std::size_t i = 0; i < now.curves.size() && found == now.curves.size(); ++i)
      if (!taken[i] && curve_match_key(now.curves[i].key, ignore_backend) == key) found = i;
    if (found == now.curves.size()) {
      result.base_only.push_back(before.key);
      continue;
    }
    taken[found] = true;
    for (FitParameter parameter : {FitParameter::alpha, FitParameter::beta})
      result.comparisons.push_back(
          compare_parameter(before, now.curves[found], parameter, threshold));
  }
  for (std::size_t i = 0; i < now.curves.size(); ++i)
    if (!taken[i]) result.new_only.push_back(now.curves[i].key);
  return result;
}

}  // namespace collbench
