#include "sizes.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace collbench {
namespace {

std::optional<unsigned> binary_shift(std::string_view suffix) {
  std::string lower;
  for (char c : suffix) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.empty() || lower == "b") return 0;
  for (const auto& [letter, shift] : {std::pair{'k', 10u}, {'m', 20u}, {'g', 30u}, {'t', 40u}})
    if (lower == std::string{letter} || lower == std::string{letter} + "b" ||
        lower == std::string{letter} + "ib")
      return shift;
  return std::nullopt;
}

}  // namespace

std::size_t parse_size(std::string_view text) {
  unsigned long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [end, error] = std::from_chars(first, last, value);
  const auto bad = [&](std::string_view why) {
    return std::invalid_argument(fmt::format("'{}' is not a size ({})", text, why));
  };
  if (error == std::errc::result_out_of_range) throw bad("too large");
  if (error != std::errc() || end == first)
    throw bad("expected a number of bytes with an optional K, M or G suffix");
  // A fraction, as nccl-tests takes it (-e 1.5G): the bytes it makes, rounded down.
  double fraction = 0;
  if (end != last && *end == '.') {
    const auto parsed = std::from_chars(first, last, fraction, std::chars_format::fixed);
    if (parsed.ec != std::errc()) throw bad("expected digits after the decimal point");
    fraction -= std::floor(fraction);
    end = parsed.ptr;
  }
  const auto shift = binary_shift(text.substr(end - first));
  if (!shift) throw bad("unknown suffix; K, M, G are powers of 1024");
  if (*shift && value > (std::numeric_limits<std::size_t>::max() >> *shift)) throw bad("too large");
  const auto whole = static_cast<std::size_t>(value) << *shift;
  return whole + static_cast<std::size_t>(std::ldexp(fraction, static_cast<int>(*shift)));
}

std::string format_size(std::size_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (value == std::floor(value)) return fmt::format("{:.0f} {}", value, kUnits[unit]);
  return fmt::format("{:.4g} {}", value, kUnits[unit]);  // below 1024: never an exponent
}

std::vector<std::size_t> sweep_sizes(const SweepSpec& spec) {
  if (spec.min_bytes == 0) throw std::invalid_argument("-b/--minbytes must be at least 1 byte");
  if (spec.max_bytes < spec.min_bytes)
    throw std::invalid_argument(fmt::format("-e/--maxbytes ({}) is below -b/--minbytes ({})",
                                            spec.max_bytes, spec.min_bytes));
  std::vector<std::size_t> sizes;
  if (spec.step_bytes) {
    if (*spec.step_bytes == 0) throw std::invalid_argument("-i/--stepbytes must be positive");
    for (std::size_t size = spec.min_bytes; size <= spec.max_bytes; size += *spec.step_bytes) {
      sizes.push_back(size);
      if (spec.max_bytes - size < *spec.step_bytes) break;
    }
    return sizes;
  }
  if (!(spec.step_factor > 1))
    throw std::invalid_argument(
        fmt::format("-f/--stepfactor must be greater than 1, got {}", spec.step_factor));
  for (double size = static_cast<double>(spec.min_bytes);
       size <= static_cast<double>(spec.max_bytes); size *= spec.step_factor) {
    const auto whole = static_cast<std::size_t>(std::llround(size));
    if (sizes.empty() || whole != sizes.back()) sizes.push_back(whole);
  }
  return sizes;
}

}  // namespace collbench
