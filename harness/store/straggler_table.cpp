#include "harness/store/straggler_table.h"

#include <cstdint>
#include <vector>

#include "harness/plan/point.h"
#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"

namespace collbench {
namespace {

struct StragglerRow {
  std::int32_t rank;  // -1: the host's ranks together
  char host[64];      // a label here: one too long for the field is cut, not refused
  h5::NameOf<StragglerKind, parse_straggler_kind, 16> kind;
  std::int32_t ranks;
  std::int32_t points;
  std::int32_t points_last;
  std::uint64_t samples;
  std::uint64_t times_last;
  double chance;
  double p_value;
  double median_lag_us;
};

// Every column but the lag, which the row keeps in microseconds.
#define STRAGGLER_SHARED_MEMBERS \
  rank, host, kind, ranks, points, points_last, samples, times_last, chance, p_value

COLLBENCH_SHARED_MEMBERS(Straggler, StragglerRow, STRAGGLER_SHARED_MEMBERS)

hid_t straggler_row_type() {
  static const h5::Handle type =
      COLLBENCH_ROW_TYPE(StragglerRow, STRAGGLER_SHARED_MEMBERS, median_lag_us);
  return type.get();
}

StragglerRow to_straggler_row(const Straggler& straggler) {
  auto row = h5::row_of<StragglerRow>(straggler);
  row.median_lag_us = straggler.median_lag_s * kMicrosecondsPerSecond;
  return row;
}

Straggler from_straggler_row(const StragglerRow& row) {
  auto straggler = h5::record_of<Straggler>(row);
  straggler.median_lag_s = row.median_lag_us / kMicrosecondsPerSecond;
  return straggler;
}

// How many points were tested and by what thresholds: the table's attributes.
void write_judgement(hid_t table, const StragglerRecord& record) {
  const StragglerThresholds& thresholds = record.thresholds;
  h5::write_int_attribute(table, layout::kStragglerPoints, record.points);
  h5::write_double_attribute(table, layout::kStragglerAlpha, thresholds.alpha);
  h5::write_double_attribute(table, layout::kStragglerLagShare, thresholds.margin.share);
  h5::write_double_attribute(table, layout::kStragglerLagFloor,
                             thresholds.margin.floor_s * kMicrosecondsPerSecond);
}

void read_judgement(hid_t table, StragglerRecord& record) {
  record.points = static_cast<int>(h5::read_int_attribute(table, layout::kStragglerPoints));
  record.thresholds.alpha = h5::read_double_attribute(table, layout::kStragglerAlpha);
  record.thresholds.margin.share = h5::read_double_attribute(table, layout::kStragglerLagShare);
  record.thresholds.margin.floor_s =
      h5::read_double_attribute(table, layout::kStragglerLagFloor) / kMicrosecondsPerSecond;
}

}  // namespace

void write_straggler_table(hid_t file, const StragglerRecord& record) {
  const h5::Handle table =
      write_records(file, layout::kStragglers, straggler_row_type(), record.named,
                    to_straggler_row);
  write_judgement(table.get(), record);
  h5::flush(file);
}

std::optional<StragglerRecord> read_straggler_table(hid_t file) {
  if (!h5::link_exists(file, layout::kStragglers)) return std::nullopt;
  StragglerRecord record;
  record.named = read_records(file, layout::kStragglers, straggler_row_type(), from_straggler_row);
  read_judgement(h5::open_dataset(file, layout::kStragglers).get(), record);
  return record;
}

}  // namespace collbench
