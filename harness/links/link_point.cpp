#include "harness/links/link_point.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace collbench {
namespace {

constexpr std::array<std::pair<LinkMode, std::string_view>, 3> kModeNames{
    {{LinkMode::latency, "latency"},
     {LinkMode::bandwidth, "bandwidth"},
     {LinkMode::bidirectional, "bidirectional"}}};
constexpr std::array<std::pair<LinkKind, std::string_view>, 2> kKindNames{
    {{LinkKind::intra, "intra"}, {LinkKind::inter, "inter"}}};

template <typename Enum, std::size_t N>
std::string_view name_in(const std::array<std::pair<Enum, std::string_view>, N>& names,
                         Enum value) {
  for (const auto& [each, text] : names)
    if (each == value) return text;
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse_in(const std::array<std::pair<Enum, std::string_view>, N>& names,
                             std::string_view text) {
  for (const auto& [each, name] : names)
    if (name == text) return each;
  return std::nullopt;
}

}  // namespace

std::string_view name(LinkMode mode) { return name_in(kModeNames, mode); }
std::optional<LinkMode> parse_link_mode(std::string_view text) {
  return parse_in(kModeNames, text);
}
std::string_view name(LinkKind kind) { return name_in(kKindNames, kind); }
std::optional<LinkKind> parse_link_kind(std::string_view text) {
  return parse_in(kKindNames, text);
}

double LinkPoint::bytes_per_message() const {
  const double bytes = static_cast<double>(size_bytes);
  return mode == LinkMode::bidirectional ? 2 * bytes : bytes;
}

double LinkPoint::bandwidth_GBps() const {
  return summary.median > 0 ? bytes_per_message() / summary.median / 1e9 : 0;
}

std::string link_label(const LinkPoint& point) {
  return fmt::format("{} {} {}", point.source_host,
                     point.mode == LinkMode::bandwidth ? "->" : "<->", point.destination_host);
}

}  // namespace collbench
