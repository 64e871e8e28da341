#pragma once
// The host's state, measured by something independent of what a run measures: how fast its
// ranks copy memory, all at once, at the run's start, middle and end (harness/measure/host_probe.h
// takes it, /host_probe of the file holds it). A host moves between states that change every
// point of a launch together (which cores the ranks share, where their pages lie); comparisons
// of launches are judged within one state (harness/compare/host_states.h, docs/nightly.md).
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace collbench {

enum class ProbeMoment { start, middle, end };
std::string_view name(ProbeMoment moment);  // "start", "middle", "end"
std::optional<ProbeMoment> parse_probe_moment(std::string_view text);

// One size's copy at one moment: the median over samples of each rank's rate, the slowest
// rank's, all ranks copying at once.
struct ProbeReading {
  ProbeMoment moment = ProbeMoment::start;
  std::size_t size_bytes = 0;
  double copy_GBps = 0;
};

struct HostProbe {
  std::vector<ProbeReading> readings;  // in the order taken
};

}  // namespace collbench
