#pragma once
// /link_bounds of a run file (results/SCHEMA.md, schema 11): one row per point judged against the
// links of a `collbench links` file, and that file's name and start time as attributes.
#include <optional>

#include "harness/links/link_bounds.h"
#include "harness/store/h5.h"

namespace collbench {

// Replaces /link_bounds in an open, writable file.
void write_link_bound_table(hid_t file, const LinkBoundRecord& record);

// Empty when the file holds none. Throws std::runtime_error naming a damaged table.
std::optional<LinkBoundRecord> read_link_bounds(hid_t file);

}  // namespace collbench
