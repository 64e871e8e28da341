#pragma once
// What each link's points say together: the Hockney model T(n) = alpha + n / bandwidth of one
// message one way, alpha the smallest latency median over the sizes (the smallest size's, unless
// a glitch held that one up: a TCP link sometimes holds tiny messages a millisecond) and the
// bandwidth the slower direction's window at the largest size (a line fitted through every latency point is not: on a shaped or
// protocol-switching link the small sizes pull its slope far from the asymptote, and a
// ping-pong never keeps the link full); and the links and hosts whose bandwidth falls more than
// a shortfall below their peers' (links/link_outliers.h).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/links/link_point.h"

namespace collbench {

// The default --shortfall: a link or host more than 20% below its peers is named. Healthy links
// on the virtual cluster and on real fabrics scatter by a few percent; a NIC at half rate, a
// link trained down a generation or a host capped below the fabric falls far below it.
inline constexpr double kDefaultShortfall = 0.2;

struct LinkFit {
  int first_rank = 0;
  int second_rank = 0;
  std::string first_host;
  std::string second_host;
  LinkKind kind = LinkKind::inter;
  std::string transport;
  std::size_t alpha_bytes = 0;    // where alpha was taken
  double alpha_us = 0;
  std::size_t largest_bytes = 0;  // where the bandwidths were taken
  double bandwidth_GBps = 0;      // 1/beta: the slower direction's
  double forward_GBps = 0;        // first -> second
  double backward_GBps = 0;       // second -> first
  double bidirectional_GBps = 0;  // both ways at once, the two together
  bool slow = false;              // named: far below its hosts' typical links
};

struct SlowHost {
  std::string name;  // the host, or "rank R on HOST" when the links were between ranks
  LinkKind kind = LinkKind::inter;
  double typical_GBps = 0;  // the median fitted bandwidth of its links
  double median_GBps = 0;   // the median host's
};

struct LinkAnalysis {
  std::vector<LinkFit> fits;  // one per pair with a latency point and a bandwidth point
  std::vector<SlowHost> slow_hosts;
};

// Pairs in the order their first latency point comes. Throws std::invalid_argument for a
// shortfall outside (0, 1).
LinkAnalysis analyse_links(std::span<const LinkPoint> points, double shortfall);

// What a file of `collbench links` holds.
struct LinkRecord {
  std::vector<LinkPoint> points;  // the finished ones, with samples when asked
  std::optional<LinkAnalysis> analysis;
  double shortfall = 0;
};

// "h1 <-> h2", or "rank 0 on h1 <-> rank 1 on h1" where a host has several ranks in the matrix.
std::string pair_label(const LinkFit& fit, bool by_rank);
// Whether the matrix holds several ranks of one host, so that links are named by rank.
bool named_by_rank(std::span<const LinkFit> fits);

}  // namespace collbench
