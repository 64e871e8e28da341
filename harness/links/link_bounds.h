#pragma once
// Collectives judged against their links: from the fitted alpha and bandwidth of the links a
// point's communicator crosses, the time the textbook algorithms (docs/DESIGN.md, "Models") would
// take, the fastest of them taken as what the fabric allows, and the point's measured time over it.
//
// The links a point crosses are those between the hosts of its ranks: inter-node links when it
// spans several hosts, else the intra-node links of its one host. Every step of a ring or a tree
// waits for its slowest link, and every algorithm here crosses each host's links, so the slowest
// link sets the pace: its bandwidth, and the largest alpha among them. Reductions are left out
// (no gamma: links measure no arithmetic), so the bound is what moving the bytes alone takes.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/links/link_fits.h"
#include "harness/plan/point.h"
#include "topo/rank_topology.h"

namespace collbench {

struct LinkBound {
  std::size_t point_id = 0;  // into the points given
  LinkKind kind = LinkKind::inter;
  int links = 0;                // the measured links between the point's hosts
  double alpha_us = 0;          // the largest of theirs
  double bandwidth_GBps = 0;    // the smallest of theirs
  std::string algorithm;        // the textbook algorithm predicted fastest
  double predicted_us = 0;
  double measured_us = 0;       // the point's median
  double ratio() const { return measured_us / predicted_us; }
};

// One bound per point whose hosts' links were all measured; points without are left out.
std::vector<LinkBound> bound_by_links(std::span<const PointResult> points,
                                      std::span<const RankTopology> topology,
                                      std::span<const LinkFit> links);

// What `collbench fit RUN.h5 --links LINKS.h5` keeps in the run file.
struct LinkBoundRecord {
  std::vector<LinkBound> bounds;
  std::string links_file;       // as given
  std::string links_start_utc;  // when those links were measured
};

// Measured over predicted across one curve's sizes (points that differ only in size).
struct CurveBound {
  PointKey curve;  // size_bytes and count 0
  std::size_t points = 0;
  std::size_t smallest_bytes = 0;
  double smallest_ratio = 0;  // the latency term's share is largest here
  std::size_t largest_bytes = 0;
  double largest_ratio = 0;   // and the bandwidth term's here
  double median_ratio = 0;
};

// Curves in the order of their first point.
std::vector<CurveBound> bound_curves(std::span<const PointResult> points,
                                     std::span<const LinkBound> bounds);

}  // namespace collbench
