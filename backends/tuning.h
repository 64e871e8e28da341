#pragma once
// A library's own choice of algorithm and protocol, or one pinned for a fabric-tuning sweep.
#include <string>
#include <string_view>

namespace collbench {

struct Tuning {
  std::string algorithm;  // empty: the library chooses
  std::string protocol;   // empty: the library chooses
  bool operator==(const Tuning&) const = default;
};

// How reports name an algorithm or protocol: "auto" where the library chose.
inline std::string_view or_auto(const std::string& choice) {
  return choice.empty() ? std::string_view("auto") : std::string_view(choice);
}

}  // namespace collbench
