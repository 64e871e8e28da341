#pragma once
// The fitted models in a result file: /fits (one row per curve segment), /families and
// /crossovers (across rank counts). Written by `run` before it marks the file complete, and
// replaced by `collbench fit`.
#include <filesystem>
#include <optional>

#include <hdf5.h>

#include "harness/fit/curve_fits.h"

namespace collbench {

// Replaces the model tables in an open, writable file.
void write_model_tables(hid_t file, const ModelReport& report);

// The model tables of an open file; nullopt when it has none (fitting was skipped).
std::optional<ModelReport> read_model_tables(hid_t file);

// Opens a finished result file for writing, replaces its model tables, and closes it.
void store_models(const std::filesystem::path& path, const ModelReport& report);

}  // namespace collbench
