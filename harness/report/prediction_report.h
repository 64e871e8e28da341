#pragma once
// `collbench predict`'s answer as text and JSON: per curve, how it was measured and how well it
// predicted its own largest rank count out of sample; per size and rank count asked for, the
// time with its interval, its latency and bandwidth terms, and how far it was extrapolated;
// with a step's compute time, the scaling efficiency and the term that grows most.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "harness/predict/curve_predictions.h"
#include "harness/predict/step_efficiency.h"

namespace collbench {

void print_predictions(std::ostream& out, const Predictions& predictions,
                       const std::optional<StepShape>& step);
nlohmann::ordered_json predictions_json(const Predictions& predictions,
                                        const std::optional<StepShape>& step);

}  // namespace collbench
