#include "quantity.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace collbench {
namespace {

struct UnitScale {
  std::string_view unit;
  double scale;  // canonical units per one of these
};

// Bandwidths in GB/s (10^9 B/s, as busbw is reported). Bits are spelled "bit" because
// "Gb/s" versus "GB/s" is the classic factor-8 mistake in acceptance specs.
constexpr std::array kBandwidthUnits{
    UnitScale{"TB/s", 1e3},          UnitScale{"GB/s", 1},           UnitScale{"MB/s", 1e-3},
    UnitScale{"kB/s", 1e-6},         UnitScale{"KB/s", 1e-6},        UnitScale{"B/s", 1e-9},
    UnitScale{"TiB/s", 1099.511627776}, UnitScale{"GiB/s", 1.073741824},
    UnitScale{"MiB/s", 1.048576e-3}, UnitScale{"Tbit/s", 125},       UnitScale{"Gbit/s", 0.125},
    UnitScale{"Mbit/s", 1.25e-4},
};
constexpr std::array kTimeUnits{
    UnitScale{"ns", 1e-3}, UnitScale{"us", 1}, UnitScale{"µs", 1}, UnitScale{"ms", 1e3},
    UnitScale{"s", 1e6},
};

template <std::size_t N>
std::string unit_list(const std::array<UnitScale, N>& units) {
  std::vector<std::string_view> names;
  for (const auto& u : units) names.push_back(u.unit);
  return fmt::format("{}", fmt::join(names, ", "));
}

// A number and what follows it. Throws std::invalid_argument when there is no number.
std::pair<double, std::string_view> leading_number(std::string_view text) {
  text = trimmed(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // from_chars refuses '+'
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !std::isfinite(value))
    throw std::invalid_argument(fmt::format("'{}' does not start with a number", text));
  return {value, trimmed(text.substr(end - text.data()))};
}

template <std::size_t N>
WrittenQuantity parse_quantity(std::string_view text, const std::array<UnitScale, N>& units,
                        std::string_view what, std::string_view example) {
  const auto [value, unit] = leading_number(text);
  if (unit.empty())
    throw std::invalid_argument(fmt::format("'{}' needs a unit: a {} such as \"{}\" ({})", text,
                                            what, example, unit_list(units)));
  for (const auto& u : units)
    if (unit == u.unit) return {value * u.scale, std::string(u.unit), u.scale};
  std::string hint;
  if (unit == "Gb/s" || unit == "Mb/s" || unit == "Gbps" || unit == "GBps")
    hint = " (write GB/s for bytes or Gbit/s for bits)";
  throw std::invalid_argument(fmt::format("'{}' has unknown unit '{}' for a {}{}; expected one of {}",
                                          text, unit, what, hint, unit_list(units)));
}

}  // namespace

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

WrittenQuantity parse_bandwidth(std::string_view text) {
  return parse_quantity(text, kBandwidthUnits, "bandwidth", "300 GB/s");
}

WrittenQuantity parse_time(std::string_view text) {
  return parse_quantity(text, kTimeUnits, "time", "25 us");
}

double parse_fraction(std::string_view text, bool signed_required) {
  const auto t = trimmed(text);
  const auto [value, unit] = leading_number(t);
  if (unit != "%")
    throw std::invalid_argument(fmt::format("'{}' must be a percentage such as \"5%\"", text));
  if (signed_required && t.front() != '+' && t.front() != '-')
    throw std::invalid_argument(fmt::format("'{}' needs a sign (\"-10%\" or \"+10%\")", text));
  return value / 100;
}

}  // namespace collbench
