#pragma once
// What `collbench links` measures between two ranks: one point per mode and size of a link.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/stats/stop_reason.h"
#include "harness/stats/summary.h"

namespace collbench {

// latency: half a ping-pong's round trip (osu_latency); bandwidth: a window of messages from
// source to destination, then a short acknowledgement (osu_bw), per message; bidirectional: a
// window each way at once (osu_bibw), per message pair.
enum class LinkMode { latency, bandwidth, bidirectional };
inline constexpr LinkMode kLinkModes[] = {LinkMode::latency, LinkMode::bandwidth,
                                          LinkMode::bidirectional};
std::string_view name(LinkMode mode);
std::optional<LinkMode> parse_link_mode(std::string_view text);

// Whether a link stays inside a host (shared memory, loopback) or crosses the network: the two
// kinds are judged against their own peers, never against each other.
enum class LinkKind { intra, inter };
std::string_view name(LinkKind kind);
std::optional<LinkKind> parse_link_kind(std::string_view text);

struct LinkPoint {
  int source_rank = 0;
  int destination_rank = 0;
  std::string source_host;
  std::string destination_host;
  LinkKind kind = LinkKind::inter;
  std::string transport;  // the lanes UCX chose, e.g. "tcp/eth0" or "sysv/memory"
  LinkMode mode = LinkMode::latency;
  std::size_t size_bytes = 0;
  int messages_per_sample = 1;  // the window
  int rounds = 1;               // passes over the matrix whose samples are pooled here
  StopReason stop_reason = StopReason::converged;
  std::vector<double> samples_seconds;  // a message's time, as the mode defines it
  Summary summary;                      // of samples_seconds

  // Bytes a sample's message time carries: both directions' for bidirectional.
  double bytes_per_message() const;
  // At the median: GB/s, 10^9 bytes/s.
  double bandwidth_GBps() const;
};

// "h1 -> h2" (latency and bidirectional points name the pair "h1 <-> h2").
std::string link_label(const LinkPoint& point);

}  // namespace collbench
