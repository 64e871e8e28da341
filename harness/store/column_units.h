#pragma once
// A column's unit is the suffix of its name (time_median_us, busbw_GBps, size_bytes): the one
// table of those suffixes, and each table's `units` attribute derived from the columns it has.
#include <string>
#include <string_view>
#include <utility>

#include "harness/store/h5.h"

namespace collbench {

inline constexpr std::pair<std::string_view, std::string_view> kUnitSuffixes[] = {
    {"_us", "microseconds"},
    {"_GBps", "10^9 bytes/s"},
    {"_bytes", "bytes"},
    {"_ns_per_byte", "nanoseconds per byte"}};

// "per field name: _us microseconds, _bytes bytes": the suffixes the table's columns carry, in
// the order of kUnitSuffixes; empty when none does.
std::string column_units(hid_t table);

// Writes column_units(table) as its `units` attribute, where its columns carry a unit.
void write_column_units(hid_t table);

}  // namespace collbench
