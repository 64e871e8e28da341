#pragma once
// For the spec tests: the problems of a spec that must not parse, joined for substring checks.
#include <gtest/gtest.h>

#include <string>

#include "harness/check/spec.h"

namespace collbench {

inline std::string problems_of(const std::string& text) {
  try {
    parse_spec(text, "spec.toml");
  } catch (const SpecError& error) {
    std::string all;
    for (const auto& p : error.problems) all += p + "\n";
    return all;
  }
  ADD_FAILURE() << "spec parsed:\n" << text;
  return {};
}

}  // namespace collbench
