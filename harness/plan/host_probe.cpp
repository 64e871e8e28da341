#include "harness/plan/host_probe.h"

#include <array>
#include <utility>

namespace collbench {
namespace {

constexpr std::array<std::pair<ProbeMoment, std::string_view>, 3> kMomentNames{{
    {ProbeMoment::start, "start"},
    {ProbeMoment::middle, "middle"},
    {ProbeMoment::end, "end"},
}};

}  // namespace

std::string_view name(ProbeMoment moment) {
  for (const auto& [value, text] : kMomentNames)
    if (value == moment) return text;
  return "start";
}

std::optional<ProbeMoment> parse_probe_moment(std::string_view text) {
  for (const auto& [value, spelled] : kMomentNames)
    if (spelled == text) return value;
  return std::nullopt;
}

}  // namespace collbench
