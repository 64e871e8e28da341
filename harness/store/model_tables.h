#pragma once
// The fitted models in a result file: /fits (one row per curve segment), /families and
// /crossovers (across rank counts). Written by `run` before it marks the file complete, and
// replaced by `collbench fit`.
#include <optional>

#include <hdf5.h>

#include "harness/fit/curve_fits.h"

namespace collbench {

// Replaces the model tables in an open, writable file.
void write_model_tables(hid_t file, const ModelReport& report);

// The model tables of an open file; nullopt when it has none (fitting was skipped).
std::optional<ModelReport> read_model_tables(hid_t file);

}  // namespace collbench
