#pragma once
// One link's points, measured by the two ranks at its ends: every size and mode of the plan, in
// the same order on both sides. The source of each point times it and decides when it stops;
// its partner answers and follows.
#include <cstddef>
#include <vector>

#include "backends/point_to_point.h"
#include "harness/links/link_point.h"
#include "harness/measure/sampling.h"

namespace collbench {

struct LinkPlan {
  std::vector<std::size_t> sizes;
  std::vector<LinkMode> modes{std::begin(kLinkModes), std::end(kLinkModes)};
  Sampling sampling{.warmup = 2};  // the warm-up in samples; each round's share of stopping
};

// A bandwidth window carries at least this much (4 MiB), in at most kMostWindowMessages
// messages (osu_bw's 64): a window of small messages measures the link's message rate, not
// one message's latency, and a window of large ones stays short on a slow link.
inline constexpr std::size_t kWindowBytes = std::size_t{4} << 20;
inline constexpr int kMostWindowMessages = 64;
int window_messages(LinkMode mode, std::size_t size_bytes);

// Measures every point of the link between this rank and `partner`; `first` is the side that
// sources its latency and bidirectional points and the first direction of its bandwidth. Returns
// the points this rank sourced, with samples and summary; host names, kind and transport are
// left for the caller. Throws what the library throws (a peer that died).
std::vector<LinkPoint> measure_link(PointToPoint& link, int self, int partner, bool first,
                                    const LinkPlan& plan);

}  // namespace collbench
