#include "harness/store/model_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "harness/store/curve_columns.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"
#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/result_file.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"
#include "harness/stats/no_value.h"

namespace collbench {
namespace {

// Alpha, beta and n½ with their intervals: the columns a segment's row and a headline's share.
struct ParameterColumns {
  double alpha_us, alpha_ci_low_us, alpha_ci_high_us;
  double beta_ns_per_byte, beta_ci_low_ns_per_byte, beta_ci_high_ns_per_byte;
  double bandwidth_GBps;
  double half_size_bytes, half_size_ci_low_bytes, half_size_ci_high_bytes;
};

struct FitRow {
  CurveColumns curve;
  std::int32_t segment;
  std::int32_t segments;
  std::uint64_t sizes;
  std::uint64_t min_size_bytes;
  std::uint64_t max_size_bytes;
  ParameterColumns parameters;
  double n90_bytes;
  double rms_rel_error, max_rel_error, holdout_median_rel_error;
  std::int8_t alpha_at_bound;  // schema 5
  std::int8_t trusted;
  char flags[1024];
};

// One row per fitted curve: its headline (curve_fits.h).
struct HeadlineRow {
  CurveColumns curve;
  std::uint64_t sizes;
  std::uint64_t min_size_bytes;
  std::uint64_t max_size_bytes;
  ParameterColumns parameters;
  double misfit_median_rel_error;
  std::uint64_t bandwidth_falls_at_bytes;
  double peak_bandwidth_GBps;
  std::int8_t trusted;
  char flags[1024];
};

struct FamilyRow {
  CurveColumns curve;
  char family[8];
  std::int8_t chosen;
  double alpha_us, beta_ns_per_byte, rms_rel_error, bic;
  double held_out_rel_error;  // schema 5
  char rank_counts[64];
  // The family's time in p and n (collectives/collective.h, RankFamily); schema 7.
  double latency_per_peer, latency_per_doubling, bandwidth_per_share, bandwidth_whole;
};

struct CrossoverRow {
  CurveColumns curve;
  char family[8];
  double alpha_us, beta_ns_per_byte, size_bytes, crossover_ranks;
  double crossover_ranks_ci_low, crossover_ranks_ci_high;  // schema 5
  std::int32_t max_ranks_measured;
  std::int8_t extrapolated;
};

// Flags as one string in the row's field; split_flags reads them back. The file keeps text at
// its own length (schema 8): the field bounds memory only, and a cut list would read back as
// other flags, so one that does not fit is a bug.
template <std::size_t N>
void store_flags(const std::vector<std::string>& flags, char (&field)[N]) {
  const std::string text = fmt::format("{}", fmt::join(flags, "; "));
  if (!h5::store_fixed_string(text, field))
    throw std::logic_error(fmt::format("{} bytes of fit flags, more than the {} a row holds: {}",
                                       text.size(), N - 1, text));
}

// `fitted`: a SegmentReport or a Headline.
template <typename Fitted>
ParameterColumns parameter_columns(const Fitted& fitted) {
  return {.alpha_us = fitted.alpha_s * 1e6,
          .alpha_ci_low_us = fitted.alpha_ci.low * 1e6,
          .alpha_ci_high_us = fitted.alpha_ci.high * 1e6,
          .beta_ns_per_byte = fitted.beta_s_per_byte * 1e9,
          .beta_ci_low_ns_per_byte = fitted.beta_ci.low * 1e9,
          .beta_ci_high_ns_per_byte = fitted.beta_ci.high * 1e9,
          .bandwidth_GBps = 1e-9 / fitted.beta_s_per_byte,
          .half_size_bytes = fitted.half_size_bytes,
          .half_size_ci_low_bytes = fitted.half_size_ci.low,
          .half_size_ci_high_bytes = fitted.half_size_ci.high};
}

std::vector<HeadlineRow> headline_rows(const ModelReport& report) {
  std::vector<HeadlineRow> rows;
  for (const auto& curve : report.curves) {
    if (!curve.headline) continue;
    const Headline& h = *curve.headline;
    HeadlineRow row{};
    row.curve = curve_columns(curve.key);
    COLLBENCH_COPY_MEMBERS(row, curve, sizes, min_size_bytes, max_size_bytes);
    COLLBENCH_COPY_MEMBERS(row, h, bandwidth_falls_at_bytes);
    row.parameters = parameter_columns(h);
    row.misfit_median_rel_error = h.misfit;
    row.peak_bandwidth_GBps = h.bandwidth_falls_at_bytes ? 1e-9 / h.peak_beta_s_per_byte : kNoValue;
    row.trusted = h.trusted();
    store_flags(h.flags, row.flags);
    rows.push_back(row);
  }
  return rows;
}

// The members a segment, a family fit and a crossover share with their rows, for the copies both
// ways.
#define SEGMENT_SHARED_MEMBERS \
  sizes, min_size_bytes, max_size_bytes, rms_rel_error, max_rel_error, alpha_at_bound
#define FAMILY_FIT_SHARED_MEMBERS rms_rel_error, bic, held_out_rel_error
#define CROSSOVER_SHARED_MEMBERS size_bytes, max_ranks_measured

std::vector<FitRow> fit_rows(const ModelReport& report) {
  std::vector<FitRow> rows;
  for (const auto& curve : report.curves) {
    FitRow row{};
    row.curve = curve_columns(curve.key);
    row.segments = static_cast<std::int32_t>(curve.segments.size());
    row.sizes = curve.sizes;
    row.holdout_median_rel_error = curve.holdout_median_rel_error.value_or(kNoValue);
    if (curve.segments.empty()) {
      row.parameters = {kNoValue, kNoValue, kNoValue, kNoValue, kNoValue,
                        kNoValue, kNoValue, kNoValue, kNoValue, kNoValue};
      row.n90_bytes = row.rms_rel_error = row.max_rel_error = kNoValue;
      store_flags(curve.flags, row.flags);
      rows.push_back(row);
      continue;
    }
    for (std::size_t k = 0; k < curve.segments.size(); ++k) {
      const SegmentReport& s = curve.segments[k];
      row.segment = static_cast<std::int32_t>(k);
      COLLBENCH_COPY_MEMBERS(row, s, SEGMENT_SHARED_MEMBERS);
      row.parameters = parameter_columns(s);
      row.n90_bytes = 9 * s.half_size_bytes;
      row.trusted = s.trusted();
      store_flags(s.flags, row.flags);
      rows.push_back(row);
    }
  }
  return rows;
}

// The family, alpha and beta columns of a FamilyRow or a CrossoverRow.
template <typename Row>
void store_family_fit(const FamilyFit& fit, Row& row) {
  h5::store_fixed_string(fit.family.name, row.family);
  row.alpha_us = fit.alpha_s * 1e6;
  row.beta_ns_per_byte = fit.beta_s_per_byte * 1e9;
}

std::vector<FamilyRow> family_rows(const ModelReport& report) {
  std::vector<FamilyRow> rows;
  for (const auto& family : report.families)
    for (std::size_t i = 0; i < family.families.size(); ++i) {
      const FamilyFit& fit = family.families[i];
      FamilyRow row{};
      row.curve = curve_columns(family.key);
      store_family_fit(fit, row);
      COLLBENCH_COPY_MEMBERS(row, fit.family, latency_per_peer, latency_per_doubling,
                             bandwidth_per_share, bandwidth_whole);
      COLLBENCH_COPY_MEMBERS(row, fit, FAMILY_FIT_SHARED_MEMBERS);
      row.chosen = i == 0;
      h5::store_fixed_string(fmt::format("{}", fmt::join(family.rank_counts, ",")), row.rank_counts);
      rows.push_back(row);
    }
  return rows;
}

CrossoverRow crossover_row(const CrossoverReport& crossover) {
  CrossoverRow row{};
  row.curve = curve_columns(crossover.key);
  store_family_fit(crossover.family, row);
  COLLBENCH_COPY_MEMBERS(row, crossover, CROSSOVER_SHARED_MEMBERS);
  row.crossover_ranks = crossover.crossover_ranks.value_or(kNoValue);
  row.crossover_ranks_ci_low = crossover.crossover_ranks_ci.low;
  row.crossover_ranks_ci_high = crossover.crossover_ranks_ci.high;
  row.extrapolated = crossover.extrapolated();
  return row;
}

void add_member(h5::RowType& row, const char*, std::size_t offset,
                std::type_identity<ParameterColumns>) {
  COLLBENCH_ADD_MEMBERS(row, offset, ParameterColumns, alpha_us, alpha_ci_low_us, alpha_ci_high_us,
                        beta_ns_per_byte, beta_ci_low_ns_per_byte, beta_ci_high_ns_per_byte,
                        bandwidth_GBps, half_size_bytes, half_size_ci_low_bytes,
                        half_size_ci_high_bytes);
}

h5::Handle fit_row_type() {
  return COLLBENCH_ROW_TYPE(FitRow, curve, segment, segments, sizes, min_size_bytes, max_size_bytes,
                            parameters, n90_bytes, rms_rel_error, max_rel_error,
                            holdout_median_rel_error, alpha_at_bound, trusted, flags);
}

h5::Handle headline_row_type() {
  return COLLBENCH_ROW_TYPE(HeadlineRow, curve, sizes, min_size_bytes, max_size_bytes, parameters,
                            misfit_median_rel_error, bandwidth_falls_at_bytes, peak_bandwidth_GBps,
                            trusted, flags);
}

h5::Handle family_row_type() {
  return COLLBENCH_ROW_TYPE(FamilyRow, curve, family, chosen, alpha_us, beta_ns_per_byte,
                            rms_rel_error, bic, held_out_rel_error, rank_counts, latency_per_peer,
                            latency_per_doubling, bandwidth_per_share, bandwidth_whole);
}

h5::Handle crossover_row_type() {
  return COLLBENCH_ROW_TYPE(CrossoverRow, curve, family, alpha_us, beta_ns_per_byte, size_bytes,
                            crossover_ranks, crossover_ranks_ci_low, crossover_ranks_ci_high,
                            max_ranks_measured, extrapolated);
}

// Columns that files of an older schema version lack; they read as empty strings and zeros.
constexpr std::string_view kColumnsAfterSchema2[] = {
    "algorithm",        "protocol",          "alpha_at_bound",
    "held_out_rel_error", "crossover_ranks_ci_low", "crossover_ranks_ci_high",
    "latency_per_peer", "latency_per_doubling", "bandwidth_per_share",
    "bandwidth_whole",  "root",              "sync"};

// Every row of a model table; none where the file was never fitted.
template <typename Row>
std::vector<Row> read_table(hid_t file, const char* name, hid_t type) {
  if (!h5::link_exists(file, name)) return {};
  return h5::read_rows<Row>(file, name, type, {.added = kColumnsAfterSchema2});
}

std::vector<std::string> split_flags(const char* field, std::size_t bytes) {
  std::vector<std::string> flags;
  const std::string text = h5::load_fixed_string(std::span(field, bytes));
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find("; ", start), text.size());
    flags.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  return flags;
}

Interval interval(double low, double high, double scale) { return {low * scale, high * scale}; }

// `fitted`: a SegmentReport or a Headline.
template <typename Fitted>
void load_parameters(const ParameterColumns& columns, Fitted& fitted) {
  fitted.alpha_s = columns.alpha_us * 1e-6;
  fitted.alpha_ci = interval(columns.alpha_ci_low_us, columns.alpha_ci_high_us, 1e-6);
  fitted.beta_s_per_byte = columns.beta_ns_per_byte * 1e-9;
  fitted.beta_ci = interval(columns.beta_ci_low_ns_per_byte, columns.beta_ci_high_ns_per_byte, 1e-9);
  fitted.half_size_bytes = columns.half_size_bytes;
  fitted.half_size_ci = {columns.half_size_ci_low_bytes, columns.half_size_ci_high_bytes};
}

void read_curves(hid_t file, ModelReport& report) {
  for (const FitRow& row : read_table<FitRow>(file, "fits", fit_row_type().get())) {
    const PointKey key = curve_key_of(row.curve);
    if (report.curves.empty() || row.segments == 0 || row.segment == 0) {
      CurveFit fresh;
      fresh.key = key;
      fresh.sizes = row.sizes;
      report.curves.push_back(std::move(fresh));
    }
    CurveFit& curve = report.curves.back();
    if (!std::isnan(row.holdout_median_rel_error))
      curve.holdout_median_rel_error = row.holdout_median_rel_error;
    if (row.segments == 0) {
      curve.flags = split_flags(row.flags, sizeof row.flags);
      continue;
    }
    SegmentReport segment;
    COLLBENCH_COPY_MEMBERS(segment, row, SEGMENT_SHARED_MEMBERS);
    load_parameters(row.parameters, segment);
    segment.flags = split_flags(row.flags, sizeof row.flags);
    curve.sizes = 0;
    curve.segments.push_back(std::move(segment));
    for (const auto& s : curve.segments) curve.sizes += s.sizes;
  }
}

// Each headline belongs to the fitted curve of its key (files before schema 5 have none).
void read_headlines(hid_t file, ModelReport& report) {
  for (const HeadlineRow& row :
       read_table<HeadlineRow>(file, "headlines", headline_row_type().get())) {
    const PointKey key = curve_key_of(row.curve);
    const auto curve = std::find_if(report.curves.begin(), report.curves.end(),
                                    [&](const CurveFit& c) { return c.key == key; });
    if (curve == report.curves.end())
      throw std::runtime_error("/headlines: a row whose curve /fits does not hold");
    Headline h;
    load_parameters(row.parameters, h);
    h.misfit = row.misfit_median_rel_error;
    h.bandwidth_falls_at_bytes = row.bandwidth_falls_at_bytes;
    if (h.bandwidth_falls_at_bytes) h.peak_beta_s_per_byte = 1e-9 / row.peak_bandwidth_GBps;
    h.flags = split_flags(row.flags, sizeof row.flags);
    curve->min_size_bytes = row.min_size_bytes;
    curve->max_size_bytes = row.max_size_bytes;
    curve->headline = std::move(h);
  }
}

// Files before schema 5 lack the families' held-out errors and the crossovers' intervals: they
// are unknown (NaN), not the zeros a missing column reads as.
bool before_schema_5(hid_t file) {
  return h5::has_attribute(file, layout::kSchemaVersion) &&
         h5::read_int_attribute(file, layout::kSchemaVersion) < 5;
}

RankFamily family_of(const PointKey& key, const char (&stored)[8]) {
  const std::string name = h5::load_fixed_string(stored);
  if (const RankFamily* family = find_family(key.collective, name)) return *family;
  throw InvalidResultFile(
      fmt::format("/families: {} has no rank family '{}'", collbench::name(key.collective), name));
}

// The family, alpha and beta of a FamilyRow or a CrossoverRow: store_family_fit read back.
template <typename Row>
FamilyFit loaded_family_fit(const PointKey& key, const Row& row) {
  FamilyFit fit;
  fit.family = family_of(key, row.family);
  fit.alpha_s = row.alpha_us * 1e-6;
  fit.beta_s_per_byte = row.beta_ns_per_byte * 1e-9;
  return fit;
}

void read_families(hid_t file, ModelReport& report) {
  const bool unknown = before_schema_5(file);
  for (const FamilyRow& row : read_table<FamilyRow>(file, "families", family_row_type().get())) {
    const PointKey key = curve_key_of(row.curve);
    FamilyFit fit = loaded_family_fit(key, row);
    COLLBENCH_COPY_MEMBERS(fit, row, FAMILY_FIT_SHARED_MEMBERS);
    if (unknown) fit.held_out_rel_error = kNoValue;
    if (row.chosen || report.families.empty()) {
      FamilyReport family;
      family.key = key;
      const std::string counts = h5::load_fixed_string(row.rank_counts);
      for (std::size_t start = 0; start < counts.size();) {
        const std::size_t end = std::min(counts.find(',', start), counts.size());
        family.rank_counts.push_back(std::stoi(counts.substr(start, end - start)));
        start = end + 1;
      }
      report.families.push_back(std::move(family));
    }
    report.families.back().families.push_back(fit);
  }
  for (const CrossoverRow& row :
       read_table<CrossoverRow>(file, "crossovers", crossover_row_type().get())) {
    CrossoverReport crossover;
    crossover.key = curve_key_of(row.curve);
    crossover.family = loaded_family_fit(crossover.key, row);
    COLLBENCH_COPY_MEMBERS(crossover, row, CROSSOVER_SHARED_MEMBERS);
    if (!std::isnan(row.crossover_ranks)) crossover.crossover_ranks = row.crossover_ranks;
    if (!unknown)
      crossover.crossover_ranks_ci = {row.crossover_ranks_ci_low, row.crossover_ranks_ci_high};
    report.crossovers.push_back(std::move(crossover));
  }
}

}  // namespace

void write_model_tables(hid_t file, const ModelReport& report) {
  replace_table(file, "fits", fit_row_type().get(), fit_rows(report));
  replace_table(file, "headlines", headline_row_type().get(), headline_rows(report));
  replace_table(file, "families", family_row_type().get(), family_rows(report));
  write_records(file, "crossovers", crossover_row_type().get(), report.crossovers, crossover_row);
  h5::flush(file);
}

std::optional<ModelReport> read_model_tables(hid_t file) {
  if (!h5::link_exists(file, "fits")) return std::nullopt;
  ModelReport report;
  read_curves(file, report);
  read_headlines(file, report);
  read_families(file, report);
  return report;
}

}  // namespace collbench
