#pragma once
// Which links of an all-pairs matrix, and which hosts, are far below their peers: the check an
// acceptance team makes for one bad cable, a NIC at half rate or a mis-set switch port.
#include <cstddef>
#include <span>
#include <vector>

namespace collbench {

// One measured link between hosts (or ranks) `first` and `second`, both below the matrix's
// size. `speed` is larger for a better link: a bandwidth, or the inverse of a latency.
struct LinkSpeed {
  int first = 0;
  int second = 0;
  double speed = 0;
};

struct LinkOutliers {
  std::vector<std::size_t> links;  // indices into the links given, ascending
  std::vector<int> hosts;          // ascending
  std::vector<double> typical_speeds;  // each host's; 0 for a host without links
  double median_host_speed = 0;        // the median of the hosts' typical speeds
};

// A host's typical speed is the median of its links'. A host is slow when its typical speed is
// more than `shortfall` (a fraction, 0.2 for 20%) below the median host's; a link is slow when
// it is more than `shortfall` below the better of its two hosts' typical speeds. So a slow host
// names every link it takes part in, and one bad link between healthy hosts names that link
// alone. Links of one kind only (all between hosts, or all within one): a host's own links
// set its standard. Throws std::invalid_argument for a host outside 0..hosts-1, a link from a
// host to itself, a speed that is not positive, or a shortfall outside (0, 1).
LinkOutliers find_link_outliers(std::span<const LinkSpeed> links, int hosts, double shortfall);

}  // namespace collbench
