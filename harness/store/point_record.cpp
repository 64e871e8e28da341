#include "harness/store/point_record.h"

#include "collectives/collective.h"
#include "harness/store/layout.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"
#include "harness/store/summary_columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <ranges>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace collbench {
namespace {

template <std::size_t N>
using Text = char[N];  // N - 1 bytes of UTF-8 and a null

// Every column of /points, in the file's order: its type in memory, its name (units in it) and
// the schema version that added it (2: the oldest read). results/SCHEMA.md says what each holds.
#define COLLBENCH_POINT_COLUMNS(COLUMN)                                                          \
  COLUMN(std::int64_t, point_id, 2)                                                              \
  COLUMN(Text<24>, backend, 2)                                                                   \
  COLUMN(Text<16>, collective, 2)                                                                \
  COLUMN(Text<16>, datatype, 2)                                                                  \
  COLUMN(Text<16>, redop, 2)                                                                     \
  COLUMN(Text<16>, placement, 2)                                                                 \
  COLUMN(Text<32>, algorithm, 3) /* empty: the library chose */                                 \
  COLUMN(Text<32>, protocol, 3)                                                                  \
  COLUMN(Text<16>, chosen_algorithm, 5) /* the library's own account; empty if none */          \
  COLUMN(Text<16>, chosen_protocol, 5)                                                           \
  COLUMN(std::int32_t, chosen_channels, 5) /* 0 when not reported */                            \
  COLUMN(Text<16>, mode, 2)                                                                      \
  COLUMN(Text<16>, sync, 4) /* empty in older files, which all started at a barrier */          \
  COLUMN(Text<16>, stop_reason, 2)                                                               \
  COLUMN(std::int32_t, nranks, 2)                                                                \
  COLUMN(std::int32_t, root, 17) /* kNoRoot for collectives without one */                      \
  COLUMN(std::int8_t, in_place, 2)                                                               \
  COLUMN(std::uint64_t, size_bytes, 2)                                                           \
  COLUMN(std::uint64_t, count, 2)                                                                \
  COLUMN(std::uint64_t, samples, 2)                                                              \
  COLUMN(std::int32_t, rounds, 6) /* 0 in older files, which measured in one round */           \
  COLUMN(std::int32_t, ops_per_sample, 2)                                                        \
  COLUMN(std::uint64_t, invalid_samples, 4)                                                      \
  COLUMN(double, window_margin_us, 4) /* NaN outside window starts */                           \
  COLUMN(double, clock_error_us, 4)                                                              \
  COLUMN(SummaryColumns, times, 2) /* kSummaryFields' columns */                                \
  COLUMN(double, algbw_GBps, 2)                                                                  \
  COLUMN(double, busbw_GBps, 2)                                                                  \
  COLUMN(std::int64_t, wrong, 2) /* the check before timing; kNotChecked when not run */        \
  COLUMN(std::int64_t, wrong_after_timing, 19) /* older files did not check after timing */     \
  COLUMN(Text<24>, implausible, 19) /* the mark's name; empty at a plausible point */           \
  COLUMN(double, overlap_collective_slowdown, 13) /* NaN without --overlap-load */              \
  COLUMN(double, overlap_load_slowdown, 13)                                                      \
  COLUMN(double, overlap_hidden, 13)                                                             \
  COLUMN(double, overlap_hidden_ci_low, 13)                                                      \
  COLUMN(double, overlap_hidden_ci_high, 13)                                                     \
  COLUMN(double, osu_mean_us, 14) /* NaN where it does not apply */                             \
  COLUMN(double, sample_step_us, 15) /* 0 where the timer showed no step */

struct PointRow {
#define COLLBENCH_POINT_MEMBER(type, name, since) type name;
  COLLBENCH_POINT_COLUMNS(COLLBENCH_POINT_MEMBER)
#undef COLLBENCH_POINT_MEMBER
};

struct ColumnSince {
  std::string_view name;
  int schema;
};

constexpr ColumnSince kPointColumnsSince[] = {
#define COLLBENCH_POINT_SINCE(type, name, since) {#name, since},
    COLLBENCH_POINT_COLUMNS(COLLBENCH_POINT_SINCE)
#undef COLLBENCH_POINT_SINCE
};

constexpr bool added_after_schema_2(const ColumnSince& column) { return column.schema > 2; }

// The columns older files may lack: they read as zeros, text as empty.
constexpr auto kPointColumnsAddedAfterSchema2 = [] {
  std::array<std::string_view, std::ranges::count_if(kPointColumnsSince, added_after_schema_2)>
      names;
  std::ranges::copy(kPointColumnsSince | std::views::filter(added_after_schema_2) |
                        std::views::transform(&ColumnSince::name),
                    names.begin());
  return names;
}();

constexpr h5::ColumnHistory kPointColumnHistory = {
    .added = kPointColumnsAddedAfterSchema2, .renamed = kMedianIntervalRenamedInSchema16};

template <std::size_t N>
void store_name(std::string_view text, char (&field)[N], std::string_view field_name) {
  // A cut name would silently merge different points, so refuse instead.
  if (!h5::store_fixed_string(text, field))
    throw std::invalid_argument(fmt::format(
        "{} '{}' is longer than the {} bytes the points table holds", field_name, text, N - 1));
}

PointRow to_point_row(const PointResult& point, std::int64_t point_id) {
  const PointKey& key = point.key;
  const Summary& summary = point.summary;
  PointRow row{};
  row.point_id = point_id;
  store_name(key.backend, row.backend, "backend");
  store_name(name(key.collective), row.collective, "collective");
  store_name(name(key.datatype), row.datatype, "datatype");
  store_name(redop_label(key), row.redop, "redop");
  store_name(name(key.placement), row.placement, "placement");
  store_name(key.algorithm, row.algorithm, "algorithm");
  store_name(key.protocol, row.protocol, "protocol");
  store_name(choice_name(point.chosen.algorithm), row.chosen_algorithm, "chosen_algorithm");
  store_name(choice_name(point.chosen.protocol), row.chosen_protocol, "chosen_protocol");
  row.chosen_channels = point.chosen.channels;
  store_name(name(key.mode), row.mode, "mode");
  store_name(name(point.key.sync), row.sync, "sync");
  store_name(name(point.stop_reason), row.stop_reason, "stop_reason");
  row.nranks = key.nranks;
  row.root = key.root;
  row.in_place = key.in_place ? 1 : 0;
  row.size_bytes = key.size_bytes;
  row.count = key.count;
  row.samples = summary.samples;
  row.rounds = static_cast<std::int32_t>(point.samples.round_starts.size());
  row.ops_per_sample = point.ops_per_sample;
  row.invalid_samples = point.invalid_samples;
  row.window_margin_us = point.window_margin_s * kMicrosecondsPerSecond;
  row.clock_error_us = point.clock_error_s * kMicrosecondsPerSecond;
  row.times = summary_columns(summary);
  row.algbw_GBps = point.algbw_gbps;
  row.busbw_GBps = point.busbw_gbps;
  row.wrong = point.checks.before_timing;
  row.wrong_after_timing = point.checks.after_timing;
  store_name(name(point.implausible), row.implausible, "implausible");
  row.overlap_collective_slowdown = point.overlap.collective_slowdown;
  row.overlap_load_slowdown = point.overlap.load_slowdown;
  row.overlap_hidden = point.overlap.hidden;
  row.overlap_hidden_ci_low = point.overlap.hidden_ci.low;
  row.overlap_hidden_ci_high = point.overlap.hidden_ci.high;
  row.osu_mean_us = point.osu_mean_s * kMicrosecondsPerSecond;
  row.sample_step_us = point.sample_step_s * kMicrosecondsPerSecond;
  return row;
}

PointResult from_point_row(const PointRow& row) {
  PointResult point;
  PointKey& key = point.key;
  Summary& summary = point.summary;
  key.backend = h5::load_fixed_string(row.backend);
  key.collective =
      h5::parse_member(parse_collective, row.collective, layout::kPoints, "collective");
  key.datatype = h5::parse_member(parse_datatype, row.datatype, layout::kPoints, "datatype");
  // Collectives that reduce nothing store "none"; their key keeps the default op.
  if (uses_reduce_op(key.collective))
    key.op = h5::parse_member(parse_reduce_op, row.redop, layout::kPoints, "redop");
  key.placement = h5::parse_member(parse_placement, row.placement, layout::kPoints, "placement");
  key.algorithm = h5::load_fixed_string(row.algorithm);
  key.protocol = h5::load_fixed_string(row.protocol);
  store_choice_name(h5::load_fixed_string(row.chosen_algorithm), point.chosen.algorithm);
  store_choice_name(h5::load_fixed_string(row.chosen_protocol), point.chosen.protocol);
  point.chosen.channels = row.chosen_channels;
  key.mode = h5::parse_member(parse_mode, row.mode, layout::kPoints, "mode");
  point.stop_reason =
      h5::parse_member(parse_stop_reason, row.stop_reason, layout::kPoints, "stop_reason");
  key.nranks = row.nranks;
  key.root = root_of(key.collective, row.root);  // no collective had one before schema 17
  key.in_place = row.in_place != 0;
  key.size_bytes = row.size_bytes;
  key.count = row.count;
  summary.samples = row.samples;
  point.ops_per_sample = row.ops_per_sample;
  // Files before schema 4 have no sync column: their samples all started at a barrier.
  if (row.sync[0] != '\0')
    point.key.sync = h5::parse_member(parse_sample_start, row.sync, layout::kPoints, "sync");
  point.invalid_samples = row.invalid_samples;
  if (point.key.sync == SampleStart::window) {
    point.window_margin_s = row.window_margin_us / kMicrosecondsPerSecond;
    point.clock_error_s = row.clock_error_us / kMicrosecondsPerSecond;
  }
  read_summary_columns(row.times, summary);
  point.algbw_gbps = row.algbw_GBps;
  point.busbw_gbps = row.busbw_GBps;
  point.checks = {.before_timing = row.wrong, .after_timing = row.wrong_after_timing};
  point.implausible =
      h5::parse_member(parse_implausible, row.implausible, layout::kPoints, "implausible");
  if (row.overlap_collective_slowdown > 0)  // not 0, as files before schema 13 read, nor NaN
    point.overlap = {.collective_slowdown = row.overlap_collective_slowdown,
                     .load_slowdown = row.overlap_load_slowdown,
                     .hidden = row.overlap_hidden,
                     .hidden_ci = {row.overlap_hidden_ci_low, row.overlap_hidden_ci_high}};
  if (row.osu_mean_us > 0)  // not 0, as files before schema 14 read, nor NaN
    point.osu_mean_s = row.osu_mean_us / kMicrosecondsPerSecond;
  point.sample_step_s = row.sample_step_us / kMicrosecondsPerSecond;
  return point;
}

template <std::size_t N>
void visit_cell(std::string_view name, const Text<N>& text, const PointCellVisitor& cell) {
  cell(name, std::string_view(text, std::find(text, text + N, '\0')));
}

template <std::integral Integer>
void visit_cell(std::string_view name, Integer value, const PointCellVisitor& cell) {
  if constexpr (std::is_signed_v<Integer>) cell(name, std::int64_t{value});
  else cell(name, std::uint64_t{value});
}

void visit_cell(std::string_view name, double value, const PointCellVisitor& cell) {
  cell(name, value);
}

void visit_cell(std::string_view, const SummaryColumns& times, const PointCellVisitor& cell) {
  for (std::size_t i = 0; i < std::size(kSummaryFields); ++i)
    cell(kSummaryFields[i].name, times.microseconds[i]);
}

}  // namespace

void for_each_point_cell(const PointResult& point, const PointCellVisitor& cell) {
  const PointRow row = to_point_row(point, kUnnumberedRow);
#define COLLBENCH_POINT_CELL(type, name, since) \
  if (std::string_view(#name) != "point_id") visit_cell(#name, row.name, cell);
  COLLBENCH_POINT_COLUMNS(COLLBENCH_POINT_CELL)
#undef COLLBENCH_POINT_CELL
}

hid_t point_row_type() {
  static const h5::Handle type = [] {
    h5::RowType row("PointRow", sizeof(PointRow), alignof(PointRow));
#define COLLBENCH_POINT_COLUMN_TYPE(type, name, since) COLLBENCH_ADD_MEMBER(row, 0, PointRow, name)
    COLLBENCH_POINT_COLUMNS(COLLBENCH_POINT_COLUMN_TYPE)
#undef COLLBENCH_POINT_COLUMN_TYPE
    return row.done();
  }();
  return type.get();
}

void write_point_row(hid_t table, hsize_t row, const PointResult& point, std::int64_t point_id) {
  const PointRow stored = to_point_row(point, point_id);
  const hsize_t rows[] = {row + 1};
  h5::set_extent(table, rows);
  h5::write_rows(table, point_row_type(), row, 1, &stored);
}

std::vector<PointResult> read_point_rows(hid_t table, std::size_t count, bool complete) {
  std::vector<PointRow> rows(count);
  h5::read_rows(table, point_row_type(), kPointColumnHistory, 0, rows.size(), rows.data());
  if (!complete && !rows.empty() && rows.back().collective[0] == '\0') rows.pop_back();
  std::vector<PointResult> points;
  points.reserve(rows.size());
  for (const PointRow& row : rows) points.push_back(from_point_row(row));
  return points;
}

}  // namespace collbench
