#include "point.h"

namespace collbench {

std::string_view name(Mode mode) { return mode == Mode::latency ? "latency" : "bandwidth"; }

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "latency") return Mode::latency;
  if (text == "bandwidth") return Mode::bandwidth;
  return std::nullopt;
}

}  // namespace collbench
