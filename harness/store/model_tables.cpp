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
#include "harness/store/result_file.h"
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
    row.sizes = curve.sizes;
    row.min_size_bytes = curve.min_size_bytes;
    row.max_size_bytes = curve.max_size_bytes;
    row.parameters = parameter_columns(h);
    row.misfit_median_rel_error = h.misfit;
    row.bandwidth_falls_at_bytes = h.bandwidth_falls_at_bytes;
    row.peak_bandwidth_GBps = h.bandwidth_falls_at_bytes ? 1e-9 / h.peak_beta_s_per_byte : kNoValue;
    row.trusted = h.trusted();
    store_flags(h.flags, row.flags);
    rows.push_back(row);
  }
  return rows;
}

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
      row.sizes = s.sizes;
      row.min_size_bytes = s.min_size_bytes;
      row.max_size_bytes = s.max_size_bytes;
      row.parameters = parameter_columns(s);
      row.n90_bytes = 9 * s.half_size_bytes;
      row.rms_rel_error = s.rms_rel_error;
      row.max_rel_error = s.max_rel_error;
      row.alpha_at_bound = s.alpha_at_bound;
      row.trusted = s.trusted();
      store_flags(s.flags, row.flags);
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<FamilyRow> family_rows(const ModelReport& report) {
  std::vector<FamilyRow> rows;
  for (const auto& family : report.families)
    for (std::size_t i = 0; i < family.families.size(); ++i) {
      const FamilyFit& fit = family.families[i];
      FamilyRow row{};
      row.curve = curve_columns(family.key);
      h5::store_fixed_string(fit.family.name, row.family);
      row.latency_per_peer = fit.family.latency_per_peer;
      row.latency_per_doubling = fit.family.latency_per_doubling;
      row.bandwidth_per_share = fit.family.bandwidth_per_share;
      row.bandwidth_whole = fit.family.bandwidth_whole;
      row.chosen = i == 0;
      row.alpha_us = fit.alpha_s * 1e6;
      row.beta_ns_per_byte = fit.beta_s_per_byte * 1e9;
      row.rms_rel_error = fit.rms_rel_error;
      row.bic = fit.bic;
      row.held_out_rel_error = fit.held_out_rel_error;
      h5::store_fixed_string(fmt::format("{}", fmt::join(family.rank_counts, ",")), row.rank_counts);
      rows.push_back(row);
    }
  return rows;
}

std::vector<CrossoverRow> crossover_rows(const ModelReport& report) {
  std::vector<CrossoverRow> rows;
  for (const auto& crossover : report.crossovers) {
    CrossoverRow row{};
    row.curve = curve_columns(crossover.key);
    h5::store_fixed_string(crossover.family.family.name, row.family);
    row.alpha_us = crossover.family.alpha_s * 1e6;
    row.beta_ns_per_byte = crossover.family.beta_s_per_byte * 1e9;
    row.size_bytes = crossover.size_bytes;
    row.crossover_ranks = crossover.crossover_ranks.value_or(kNoValue);
    row.crossover_ranks_ci_low = crossover.crossover_ranks_ci.low;
    row.crossover_ranks_ci_high = crossover.crossover_ranks_ci.high;
    row.max_ranks_measured = crossover.max_ranks_measured;
    row.extrapolated = crossover.extrapolated();
    rows.push_back(row);
  }
  return rows;
}

// The columns of ParameterColumns, each a double.
const std::initializer_list<std::pair<const char*, std::size_t>> kParameterFields = {
    {"alpha_us", offsetof(ParameterColumns, alpha_us)},
    {"alpha_ci_low_us", offsetof(ParameterColumns, alpha_ci_low_us)},
    {"alpha_ci_high_us", offsetof(ParameterColumns, alpha_ci_high_us)},
    {"beta_ns_per_byte", offsetof(ParameterColumns, beta_ns_per_byte)},
    {"beta_ci_low_ns_per_byte", offsetof(ParameterColumns, beta_ci_low_ns_per_byte)},
    {"beta_ci_high_ns_per_byte", offsetof(ParameterColumns, beta_ci_high_ns_per_byte)},
    {"bandwidth_GBps", offsetof(ParameterColumns, bandwidth_GBps)},
    {"half_size_bytes", offsetof(ParameterColumns, half_size_bytes)},
    {"half_size_ci_low_bytes", offsetof(ParameterColumns, half_size_ci_low_bytes)},
    {"half_size_ci_high_bytes", offsetof(ParameterColumns, half_size_ci_high_bytes)}};

template <typename Row>
void replace_table(hid_t file, const char* name, hid_t type, const std::vector<Row>& rows) {
  h5::write_table(file, name, type, rows.size(), rows.data());
}

h5::Handle fit_row_type() {
  h5::RowType fits(sizeof(FitRow));
  add_curve_columns(fits, offsetof(FitRow, curve))
      .add("segment", offsetof(FitRow, segment), H5T_NATIVE_INT32)
      .add("segments", offsetof(FitRow, segments), H5T_NATIVE_INT32)
      .add("sizes", offsetof(FitRow, sizes), H5T_NATIVE_UINT64)
      .add("min_size_bytes", offsetof(FitRow, min_size_bytes), H5T_NATIVE_UINT64)
      .add("max_size_bytes", offsetof(FitRow, max_size_bytes), H5T_NATIVE_UINT64)
      .doubles(kParameterFields, offsetof(FitRow, parameters))
      .doubles({{"n90_bytes", offsetof(FitRow, n90_bytes)},
                {"rms_rel_error", offsetof(FitRow, rms_rel_error)},
                {"max_rel_error", offsetof(FitRow, max_rel_error)},
                {"holdout_median_rel_error", offsetof(FitRow, holdout_median_rel_error)}})
      .add("alpha_at_bound", offsetof(FitRow, alpha_at_bound), H5T_NATIVE_INT8)
      .add("trusted", offsetof(FitRow, trusted), H5T_NATIVE_INT8)
      .text("flags", offsetof(FitRow, flags), sizeof(FitRow::flags));
  return fits.done();
}

h5::Handle headline_row_type() {
  h5::RowType headlines(sizeof(HeadlineRow));
  add_curve_columns(headlines, offsetof(HeadlineRow, curve))
      .add("sizes", offsetof(HeadlineRow, sizes), H5T_NATIVE_UINT64)
      .add("min_size_bytes", offsetof(HeadlineRow, min_size_bytes), H5T_NATIVE_UINT64)
      .add("max_size_bytes", offsetof(HeadlineRow, max_size_bytes), H5T_NATIVE_UINT64)
      .doubles(kParameterFields, offsetof(HeadlineRow, parameters))
      .doubles({{"misfit_median_rel_error", offsetof(HeadlineRow, misfit_median_rel_error)}})
      .add("bandwidth_falls_at_bytes", offsetof(HeadlineRow, bandwidth_falls_at_bytes),
           H5T_NATIVE_UINT64)
      .doubles({{"peak_bandwidth_GBps", offsetof(HeadlineRow, peak_bandwidth_GBps)}})
      .add("trusted", offsetof(HeadlineRow, trusted), H5T_NATIVE_INT8)
      .text("flags", offsetof(HeadlineRow, flags), sizeof(HeadlineRow::flags));
  return headlines.done();
}

h5::Handle family_row_type() {
  h5::RowType families(sizeof(FamilyRow));
  add_curve_columns(families, offsetof(FamilyRow, curve))
      .text("family", offsetof(FamilyRow, family), sizeof(FamilyRow::family))
      .add("chosen", offsetof(FamilyRow, chosen), H5T_NATIVE_INT8)
      .doubles({{"alpha_us", offsetof(FamilyRow, alpha_us)},
                {"beta_ns_per_byte", offsetof(FamilyRow, beta_ns_per_byte)},
                {"rms_rel_error", offsetof(FamilyRow, rms_rel_error)},
                {"bic", offsetof(FamilyRow, bic)},
                {"held_out_rel_error", offsetof(FamilyRow, held_out_rel_error)}})
      .text("rank_counts", offsetof(FamilyRow, rank_counts), sizeof(FamilyRow::rank_counts))
      .doubles({{"latency_per_peer", offsetof(FamilyRow, latency_per_peer)},
                {"latency_per_doubling", offsetof(FamilyRow, latency_per_doubling)},
                {"bandwidth_per_share", offsetof(FamilyRow, bandwidth_per_share)},
                {"bandwidth_whole", offsetof(FamilyRow, bandwidth_whole)}});
  return families.done();
}

h5::Handle crossover_row_type() {
  h5::RowType crossovers(sizeof(CrossoverRow));
  add_curve_columns(crossovers, offsetof(CrossoverRow, curve))
      .text("family", offsetof(CrossoverRow, family), sizeof(CrossoverRow::family))
      .doubles({{"alpha_us", offsetof(CrossoverRow, alpha_us)},
                {"beta_ns_per_byte", offsetof(CrossoverRow, beta_ns_per_byte)},
                {"size_bytes", offsetof(CrossoverRow, size_bytes)},
                {"crossover_ranks", offsetof(CrossoverRow, crossover_ranks)},
                {"crossover_ranks_ci_low", offsetof(CrossoverRow, crossover_ranks_ci_low)},
                {"crossover_ranks_ci_high", offsetof(CrossoverRow, crossover_ranks_ci_high)}})
      .add("max_ranks_measured", offsetof(CrossoverRow, max_ranks_measured), H5T_NATIVE_INT32)
      .add("extrapolated", offsetof(CrossoverRow, extrapolated), H5T_NATIVE_INT8);
  return crossovers.done();
}

// Columns that files of an older schema version lack; they read as empty strings and zeros.
constexpr std::string_view kColumnsAfterSchema2[] = {
    "algorithm",        "protocol",          "alpha_at_bound",
    "held_out_rel_error", "crossover_ranks_ci_low", "crossover_ranks_ci_high",
    "latency_per_peer", "latency_per_doubling", "bandwidth_per_share",
    "bandwidth_whole",  "root"};

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
    segment.min_size_bytes = row.min_size_bytes;
    segment.max_size_bytes = row.max_size_bytes;
    segment.sizes = row.sizes;
    load_parameters(row.parameters, segment);
    segment.rms_rel_error = row.rms_rel_error;
    segment.max_rel_error = row.max_rel_error;
    segment.alpha_at_bound = row.alpha_at_bound != 0;
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

void read_families(hid_t file, ModelReport& report) {
  const bool unknown = before_schema_5(file);
  for (const FamilyRow& row : read_table<FamilyRow>(file, "families", family_row_type().get())) {
    const PointKey key = curve_key_of(row.curve);
    const FamilyFit fit{family_of(key, row.family), row.alpha_us * 1e-6,
                        row.beta_ns_per_byte * 1e-9, row.rms_rel_error, row.bic,
                        unknown ? kNoValue : row.held_out_rel_error};
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
    crossover.family = {family_of(crossover.key, row.family), row.alpha_us * 1e-6,
                        row.beta_ns_per_byte * 1e-9, 0, 0};
    crossover.size_bytes = row.size_bytes;
    if (!std::isnan(row.crossover_ranks)) crossover.crossover_ranks = row.crossover_ranks;
    if (!unknown)
      crossover.crossover_ranks_ci = {row.crossover_ranks_ci_low, row.crossover_ranks_ci_high};
    crossover.max_ranks_measured = row.max_ranks_measured;
    report.crossovers.push_back(std::move(crossover));
  }
}

}  // namespace

void write_model_tables(hid_t file, const ModelReport& report) {
  replace_table(file, "fits", fit_row_type().get(), fit_rows(report));
  replace_table(file, "headlines", headline_row_type().get(), headline_rows(report));
  replace_table(file, "families", family_row_type().get(), family_rows(report));
  replace_table(file, "crossovers", crossover_row_type().get(), crossover_rows(report));
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
