#pragma once
// The file `collbench predict` writes (results/SCHEMA.md, "Files of collbench predict"): what it
// predicted, its out-of-sample checks and the measured medians it predicted from, so that a
// figure or a script needs nothing else. Built in memory, written under a temporary name and
// renamed, so a fault (a full disk) leaves no half-written file.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/predict/curve_predictions.h"
#include "harness/predict/step_efficiency.h"

namespace collbench {

struct PredictionRecord {
  std::map<std::string, std::string> provenance;  // command_line, collbench_version, ...
  std::vector<std::string> inputs;                // the result files predicted from
  std::optional<StepShape> step;
};

// Writes `predictions` to `path`, replacing a file there only with `overwrite`. Throws
// FileWriteFailed (harness/errors.h), leaving nothing behind, when the file cannot be written
// (a full disk).
void write_prediction_file(const std::filesystem::path& path, bool overwrite,
                           const Predictions& predictions, const PredictionRecord& record);

}  // namespace collbench
