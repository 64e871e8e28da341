#pragma once
// A library's own choice of algorithm and protocol, or one pinned for a fabric-tuning sweep.
#include <string>

namespace collbench {

struct Tuning {
  std::string algorithm;  // empty: the library chooses
  std::string protocol;   // empty: the library chooses
  bool operator==(const Tuning&) const = default;
};

}  // namespace collbench
