#include "point.h"

#include "benches/collectives/collective.h"

namespace collbench {

std::string_view name(Mode mode) { return mode == Mode::latency ? "latency" : "bandwidth"; }

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "latency") return Mode::latency;
  if (text == "bandwidth") return Mode::bandwidth;
  return std::nullopt;
}

std::string_view redop_label(const PointKey& key) {
  return uses_reduce_op(key.collective) ? name(key.op) : std::string_view("none");
}

}  // namespace collbench
