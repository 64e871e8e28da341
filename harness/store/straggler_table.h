#pragma once
// /stragglers of a run file (results/SCHEMA.md, schema 12): one row per named rank or host, none
// when nobody was named, and as attributes the points tested and the thresholds that named them.
// Written at the end of a run and again by `collbench fit`.
#include <optional>

#include "harness/stats/stragglers.h"
#include "harness/store/h5.h"

namespace collbench {

// Replaces /stragglers.
void write_straggler_table(hid_t file, const StragglerRecord& record);

// Empty when the file holds none (a run killed before its end, a file before schema 12). Throws
// std::runtime_error naming a damaged table.
std::optional<StragglerRecord> read_straggler_table(hid_t file);

}  // namespace collbench
