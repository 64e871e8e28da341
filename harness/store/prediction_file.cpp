#include "harness/store/prediction_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/errors.h"
#include "harness/store/curve_columns.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"
#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/result_file.h"
#include "harness/stats/no_value.h"

namespace collbench {
namespace {

struct PredictionRow {
  CurveColumns curve;
  char family[16];
  double size_bytes;
  double ranks;
  std::int8_t asked;  // 1: a rank count asked for; 0: a point of the band between
  double time_us, time_ci_low_us, time_ci_high_us;
  double latency_us, bandwidth_us;
  double doublings_outside, widening, error_per_doubling;
  double crossover_ranks, crossover_ranks_ci_low, crossover_ranks_ci_high;
  std::int32_t max_ranks_measured;
  double overlap;  // the step's share hidden: given, or measured (schema 13)
  double efficiency, efficiency_ci_low, efficiency_ci_high;
  double tail_us, tail_ci_low_us, tail_ci_high_us;
  double p99_over_median, p99_over_median_ci_low, p99_over_median_ci_high;
};

struct CheckRow {
  CurveColumns curve;
  char family[16];
  std::int32_t fitted_up_to;
  double size_bytes;
  double predicted_us, predicted_ci_low_us, predicted_ci_high_us;
  double measured_us, relative_error;
  std::int8_t inside;
  double predicted_slowest_us, predicted_p99_over_median, measured_p99_over_median;
};

struct MeasuredRow {
  CurveColumns curve;  // with its rank count
  double size_bytes;
  double time_median_us;
};

h5::Handle prediction_row_type() {
  return COLLBENCH_ROW_TYPE(
      PredictionRow, curve, family, size_bytes, ranks, asked, time_us, time_ci_low_us,
      time_ci_high_us, latency_us, bandwidth_us, doublings_outside, widening, error_per_doubling,
      crossover_ranks, crossover_ranks_ci_low, crossover_ranks_ci_high, max_ranks_measured, overlap,
      efficiency, efficiency_ci_low, efficiency_ci_high, tail_us, tail_ci_low_us, tail_ci_high_us,
      p99_over_median, p99_over_median_ci_low, p99_over_median_ci_high);
}

h5::Handle check_row_type() {
  return COLLBENCH_ROW_TYPE(CheckRow, curve, family, fitted_up_to, size_bytes, predicted_us,
                            predicted_ci_low_us, predicted_ci_high_us, measured_us, relative_error,
                            inside, predicted_slowest_us, predicted_p99_over_median,
                            measured_p99_over_median);
}

h5::Handle measured_row_type() {
  return COLLBENCH_ROW_TYPE(MeasuredRow, curve, size_bytes, time_median_us);
}

// `tail`: the tail at this row's rank count; null on the band's rows, which it is not predicted
// at, and without per-rank samples.
PredictionRow prediction_row(const CurvePrediction& curve, const SizePrediction& size,
                             const RankPrediction& prediction, bool asked,
                             const TailPrediction* tail, const std::optional<StepShape>& step) {
  PredictionRow row{};
  row.curve = curve_columns(curve.key);
  h5::store_fixed_string(size.model.families.front().family.name, row.family);
  row.size_bytes = size.model.size_bytes;
  row.ranks = prediction.ranks;
  row.asked = asked;
  row.time_us = prediction.time_s * 1e6;
  row.time_ci_low_us = prediction.time_ci.low * 1e6;
  row.time_ci_high_us = prediction.time_ci.high * 1e6;
  row.latency_us = prediction.latency_s * 1e6;
  row.bandwidth_us = prediction.bandwidth_s * 1e6;
  row.doublings_outside = prediction.doublings_outside;
  row.error_per_doubling = size.model.error_per_doubling;
  row.widening = std::isnan(row.error_per_doubling) ? kNoValue : prediction.widening;
  row.crossover_ranks = size.crossover_ranks.value_or(kNoValue);
  row.crossover_ranks_ci_low = size.crossover_ci.low;
  row.crossover_ranks_ci_high = size.crossover_ci.high;
  row.max_ranks_measured = size.model.max_ranks;
  row.overlap = row.efficiency = row.efficiency_ci_low = row.efficiency_ci_high = kNoValue;
  if (step) {
    const StepShape at = step_at(*step, size.overlap);
    row.overlap = at.overlap;
    const StepEfficiency efficiency = step_efficiency(prediction, at);
    row.efficiency = efficiency.efficiency;
    row.efficiency_ci_low = efficiency.efficiency_ci.low;
    row.efficiency_ci_high = efficiency.efficiency_ci.high;
  }
  row.tail_us = tail ? tail->tail_s * 1e6 : kNoValue;
  row.tail_ci_low_us = tail ? tail->tail_ci.low * 1e6 : kNoValue;
  row.tail_ci_high_us = tail ? tail->tail_ci.high * 1e6 : kNoValue;
  row.p99_over_median = tail ? tail->p99_over_median : kNoValue;
  row.p99_over_median_ci_low = tail ? tail->p99_over_median_ci.low : kNoValue;
  row.p99_over_median_ci_high = tail ? tail->p99_over_median_ci.high : kNoValue;
  return row;
}

CheckRow check_row(const CurvePrediction& curve, const OutOfSampleCheck& check) {
  // The tail's check of the same point, where the points held per-rank samples.
  const auto tail = std::ranges::find_if(curve.tail_checks, [&](const TailCheck& tail_check) {
    return tail_check.ranks == check.ranks && tail_check.size_bytes == check.size_bytes;
  });
  const bool with_tail = tail != curve.tail_checks.end();
  PointKey key = curve.key;
  key.nranks = check.ranks;
  CheckRow row{};
  row.curve = curve_columns(key);
  h5::store_fixed_string(check.family, row.family);
  row.fitted_up_to = check.fitted_up_to;
  row.size_bytes = check.size_bytes;
  row.predicted_us = check.predicted_s * 1e6;
  row.predicted_ci_low_us = check.predicted_ci.low * 1e6;
  row.predicted_ci_high_us = check.predicted_ci.high * 1e6;
  row.measured_us = check.measured_s * 1e6;
  row.relative_error = check.relative_error();
  row.inside = check.inside();
  row.predicted_slowest_us = with_tail ? tail->predicted_median_s * 1e6 : kNoValue;
  row.predicted_p99_over_median = with_tail ? tail->predicted_p99_over_median : kNoValue;
  row.measured_p99_over_median = with_tail ? tail->measured_p99_over_median : kNoValue;
  return row;
}

void write_tables(hid_t file, const Predictions& predictions,
                  const std::optional<StepShape>& step) {
  std::vector<PredictionRow> rows;
  std::vector<CheckRow> checks;
  std::vector<MeasuredRow> measured;
  for (const CurvePrediction& curve : predictions.curves) {
    for (const SizePrediction& size : curve.sizes) {
      for (std::size_t i = 0; i < size.asked.size(); ++i)
        rows.push_back(prediction_row(curve, size, size.asked[i], true,
                                      size.tail ? &size.tail->asked[i] : nullptr, step));
      for (const RankPrediction& prediction : size.band)
        rows.push_back(prediction_row(curve, size, prediction, false, nullptr, step));
    }
    for (const OutOfSampleCheck& check : curve.checks) checks.push_back(check_row(curve, check));
    for (const RankCurve& rank_curve : curve.measured) {
      PointKey key = curve.key;
      key.nranks = rank_curve.nranks;
      for (std::size_t i = 0; i < rank_curve.sizes.size(); ++i)
        measured.push_back({curve_columns(key), rank_curve.sizes[i], rank_curve.times[i] * 1e6});
    }
  }
  replace_table(file, layout::kPredictions, prediction_row_type().get(), rows);
  replace_table(file, layout::kPredictionChecks, check_row_type().get(), checks);
  replace_table(file, layout::kPredictedFrom, measured_row_type().get(), measured);
}

}  // namespace

void write_prediction_file(const std::filesystem::path& path, bool overwrite,
                           const Predictions& predictions, const PredictionRecord& record) {
  if (!overwrite && std::filesystem::exists(path))
    throw std::runtime_error(path.string() + " exists (--force replaces it)");
  std::vector<char> image;
  {
    const h5::Handle file = h5::create_memory_file();
    const hid_t root = file.get();
    h5::write_string_attribute(root, layout::kSchema, kPredictionSchemaName);
    h5::write_int_attribute(root, layout::kSchemaVersion, kSchemaVersion);
    for (const auto& [name, value] : record.provenance)
      h5::write_string_attribute(root, name, value);
    h5::write_string_list_attribute(root, layout::kInputs, record.inputs);
    h5::write_double_attribute(root, layout::kComputeMs,
                               record.step ? record.step->compute_s * 1e3 : kNoValue);
    // NaN with --overlap measured: each row holds its own.
    h5::write_double_attribute(root, layout::kOverlap,
                               record.step && !record.step->measured_overlap ? record.step->overlap
                                                                            : kNoValue);
    write_tables(root, predictions, record.step);
    image = h5::file_image(root);
  }
  std::filesystem::path partial = path;
  partial += "~";
  std::ofstream stream(partial, std::ios::binary | std::ios::trunc);
  stream.write(image.data(), static_cast<std::streamsize>(image.size()));
  stream.close();
  if (!stream) {
    std::filesystem::remove(partial);
    throw FileWriteFailed(fmt::format("writing {} failed: {}; nothing written", path.string(),
                                      std::strerror(errno)));
  }
  std::filesystem::rename(partial, path);
}

}  // namespace collbench
