#pragma once
// `collbench links` in text, as it runs and from its file (`report`): a row per link point, then
// each link's fit, the matrix of fitted bandwidths, and the slow links and hosts by name.
#include <cstdio>
#include <span>
#include <string>

#include "harness/links/link_fits.h"
#include "harness/links/link_point.h"

namespace collbench {

std::string link_points_header();
std::string link_point_row(const LinkPoint& point);
// A links file as one JSON object: {"links": [...], "fits": [...], "slow_hosts": [...],
// "shortfall": x}, times in microseconds and bandwidths in GB/s as in its tables.
std::string link_record_json(const LinkRecord& record);
// The fits, the matrix and the named slow links and hosts; `shortfall` as a fraction.
std::string link_summary(const LinkAnalysis& analysis, double shortfall);

}  // namespace collbench
