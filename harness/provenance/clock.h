#pragma once
#include <string>

namespace collbench {

// "2026-11-30T01:51:48Z"
std::string utc_now_iso8601();
// "20261130T015148Z": sortable and safe in file names.
std::string utc_timestamp_for_filename();

}  // namespace collbench
