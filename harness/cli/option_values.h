#pragma once
// Reading what was typed after an option, for every command: lists, sizes and checks, each
// failure a UsageError that names the option.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/errors.h"

namespace collbench {

// "a,b,c" as its items; "" as one empty item.
std::vector<std::string> split_list(const std::string& text);

template <typename Range>
std::vector<std::string> names_of(const Range& range) {
  std::vector<std::string> names;
  for (const auto& value : range) names.emplace_back(name(value));
  return names;
}

// Parses "a,b,c" or "all" with `parse`, naming the option and the item on failure; each value
// once, in the order given.
template <typename T, typename Parse, typename All>
std::vector<T> parse_list(const std::string& text, const char* option, Parse parse, All all) {
  if (text == "all") return {all.begin(), all.end()};
  std::vector<T> values;
  for (const auto& item : split_list(text)) {
    const auto value = parse(item);
    if (!value)
      throw UsageError(fmt::format("{}: unknown value '{}' (expected one of {}, or all)", option,
                                   item, fmt::join(names_of(all), ",")));
    if (std::find(values.begin(), values.end(), *value) == values.end()) values.push_back(*value);
  }
  return values;
}

// A size with K, M, G suffixes (powers of 1024).
std::size_t size_option(const std::string& text, const char* option);

void require(bool ok, const std::string& message);

}  // namespace collbench
