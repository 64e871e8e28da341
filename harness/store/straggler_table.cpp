#include "harness/store/straggler_table.h"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "harness/plan/point.h"
#include "harness/store/h5_table.h"
#include "harness/store/layout.h"

namespace collbench {
namespace {

struct StragglerRow {
  std::int32_t rank;  // -1: the host's ranks together
  char host[64];
  char kind[16];
  std::int32_t ranks;
  std::int32_t points;
  std::int32_t points_last;
  std::uint64_t samples;
  std::uint64_t times_last;
  double chance;
  double p_value;
  double median_lag_us;
};

hid_t straggler_row_type() {
  static const h5::Handle type = [] {
    h5::RowType row(sizeof(StragglerRow));
    row.add(COLLBENCH_MEMBER(StragglerRow, rank, H5T_NATIVE_INT32))
        .text(COLLBENCH_TEXT(StragglerRow, host))
        .text(COLLBENCH_TEXT(StragglerRow, kind))
        .add(COLLBENCH_MEMBER(StragglerRow, ranks, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(StragglerRow, points, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(StragglerRow, points_last, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(StragglerRow, samples, H5T_NATIVE_UINT64))
        .add(COLLBENCH_MEMBER(StragglerRow, times_last, H5T_NATIVE_UINT64))
        .add(COLLBENCH_MEMBER(StragglerRow, chance, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(StragglerRow, p_value, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(StragglerRow, median_lag_us, H5T_NATIVE_DOUBLE));
    return row.done();
  }();
  return type.get();
}

StragglerRow to_row(const Straggler& straggler) {
  StragglerRow row{};
  row.rank = straggler.rank;
  // A host name is a label here: one too long for the field is cut, not refused.
  h5::store_fixed_string(straggler.host, row.host);
  h5::store_fixed_string(name(straggler.kind), row.kind);
  row.ranks = straggler.ranks;
  row.points = straggler.points;
  row.points_last = straggler.points_last;
  row.samples = straggler.samples;
  row.times_last = straggler.times_last;
  row.chance = straggler.chance;
  row.p_value = straggler.p_value;
  row.median_lag_us = straggler.median_lag_s * kMicrosecondsPerSecond;
  return row;
}

Straggler from_row(const StragglerRow& row) {
  const std::string kind = h5::load_fixed_string(row.kind);
  const auto parsed = parse_straggler_kind(kind);
  if (!parsed)
    throw std::runtime_error(fmt::format("/{}: unknown kind '{}'", layout::kStragglers, kind));
  return {.rank = row.rank,
          .host = h5::load_fixed_string(row.host),
          .kind = *parsed,
          .ranks = row.ranks,
          .points = row.points,
          .points_last = row.points_last,
          .samples = row.samples,
          .times_last = row.times_last,
          .chance = row.chance,
          .p_value = row.p_value,
          .median_lag_s = row.median_lag_us / kMicrosecondsPerSecond};
}

}  // namespace

void write_straggler_table(hid_t file, const StragglerRecord& record) {
  std::vector<StragglerRow> rows;
  for (const Straggler& straggler : record.named) rows.push_back(to_row(straggler));
  h5::write_table(file, layout::kStragglers, straggler_row_type(), rows.size(), rows.data());
  const h5::Handle table = h5::open_dataset(file, layout::kStragglers);
  const StragglerThresholds& thresholds = record.thresholds;
  h5::write_int_attribute(table.get(), layout::kStragglerPoints, record.points);
  h5::write_double_attribute(table.get(), layout::kStragglerAlpha, thresholds.alpha);
  h5::write_double_attribute(table.get(), layout::kStragglerLagShare, thresholds.margin.share);
  h5::write_double_attribute(table.get(), layout::kStragglerLagFloor,
                             thresholds.margin.floor_s * kMicrosecondsPerSecond);
  h5::write_string_attribute(table.get(), layout::kUnits, "per field name: _us microseconds");
  h5::flush(file);
}

std::optional<StragglerRecord> read_straggler_table(hid_t file) {
  if (!h5::link_exists(file, layout::kStragglers)) return std::nullopt;
  StragglerRecord record;
  for (const StragglerRow& row :
       h5::read_rows<StragglerRow>(file, layout::kStragglers, straggler_row_type()))
    record.named.push_back(from_row(row));
  const h5::Handle table = h5::open_dataset(file, layout::kStragglers);
  record.points = static_cast<int>(h5::read_int_attribute(table.get(), layout::kStragglerPoints));
  record.thresholds.alpha = h5::read_double_attribute(table.get(), layout::kStragglerAlpha);
  record.thresholds.margin.share =
      h5::read_double_attribute(table.get(), layout::kStragglerLagShare);
  record.thresholds.margin.floor_s =
      h5::read_double_attribute(table.get(), layout::kStragglerLagFloor) / kMicrosecondsPerSecond;
  return record;
}

}  // namespace collbench
