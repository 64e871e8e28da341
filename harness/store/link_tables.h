#pragma once
// The record of `collbench links` (results/SCHEMA.md, schema 11): /links, one row per link point
// (appended as each round ends, counted by its finished_rows attribute); its raw samples under
// /link_samples; /link_fits, one row per link; /slow_hosts. Rows are plain structs whose text
// the file keeps as variable-length UTF-8 (store/h5_table.h).
#include <optional>
#include <vector>

#include "harness/links/link_fits.h"
#include "harness/links/link_point.h"
#include "harness/store/h5.h"

namespace collbench {

// Appends one point's row and samples to /links, creating the tables at the first; flushed, and
// counted finished only once everything it refers to is on disk.
void append_link_point(hid_t file, const LinkPoint& point);
// Replaces /link_fits and /slow_hosts, with the shortfall that named them.
void write_link_analysis(hid_t file, const LinkAnalysis& analysis, double shortfall);

// Empty when the file holds no links. Throws std::runtime_error naming a damaged table.
std::optional<LinkRecord> read_link_tables(hid_t file, bool with_samples);

}  // namespace collbench
