#include "harness/plan/plausibility.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/plan/point.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

struct MarkName {
  Implausible mark;
  std::string_view name;
};
constexpr MarkName kMarkNames[] = {{Implausible::no, ""},
                                   {Implausible::busbw_above_copy, "busbw_above_copy"},
                                   {Implausible::time_below_empty_call, "time_below_empty_call"}};

}  // namespace

std::string_view name(Implausible mark) {
  for (const auto& entry : kMarkNames)
    if (entry.mark == mark) return entry.name;
  return "?";
}

std::optional<Implausible> parse_implausible(std::string_view text) {
  for (const auto& entry : kMarkNames)
    if (entry.name == text) return entry.mark;
  return std::nullopt;
}

double PlausibilityBound::copy_gbps_for(std::size_t bytes) const {
  if (copy.empty()) return kNoValue;
  const auto above = std::ranges::upper_bound(copy, bytes, {}, &CopyRate::bytes);
  return above == copy.begin() ? copy.front().gbps : std::prev(above)->gbps;
}

Implausible judge_plausibility(const PointResult& point, const PlausibilityBound& bound) {
  if (point.key.nranks < 2) return Implausible::no;
  if (point.busbw_gbps > kPlausibilityMargin * bound.copy_gbps_for(point.key.size_bytes))
    return Implausible::busbw_above_copy;
  if (point.summary.median * kPlausibilityMargin < bound.empty_call_s)
    return Implausible::time_below_empty_call;
  return Implausible::no;
}

std::string implausible_reason(const PointResult& point, const PlausibilityBound& bound) {
  switch (point.implausible) {
    case Implausible::no: return "";
    case Implausible::busbw_above_copy: {
      const double copy = bound.copy_gbps_for(point.key.size_bytes);
      return fmt::format("busbw {:.4g} GB/s is more than {:g}x the fastest copy of its size here{}",
                         point.busbw_gbps, kPlausibilityMargin,
                         std::isnan(copy) ? "" : fmt::format(" ({:.4g} GB/s)", copy));
    }
    case Implausible::time_below_empty_call:
      return fmt::format("{:.4g} us is less than 1/{:g} of a call that moves nothing{}",
                         point.summary.median * 1e6, kPlausibilityMargin,
                         std::isnan(bound.empty_call_s)
                             ? ""
                             : fmt::format(" ({:.4g} us)", bound.empty_call_s * 1e6));
  }
  return "";
}

std::string bound_text(const PlausibilityBound& bound) {
  std::vector<std::string> rates;
  for (const CopyRate& rate : bound.copy)
    rates.push_back(fmt::format("{} {:.3g}", format_size(rate.bytes), rate.gbps));
  return fmt::format(
      "on 2 ranks or more, busbw above {:g}x the fastest copy of the point's size here (GB/s: "
      "{}) or a time below 1/{:g} of a call that moves nothing ({:.3g} us) is implausible",
      kPlausibilityMargin, fmt::join(rates, ", "), kPlausibilityMargin, bound.empty_call_s * 1e6);
}

}  // namespace collbench
