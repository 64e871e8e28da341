#include "harness/store/point_record.h"

#include "collectives/collective.h"

#include <fmt/format.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace collbench {
namespace {

template <std::size_t N>
void store_name(std::string_view text, char (&field)[N], std::string_view field_name) {
  // A cut name would silently merge different points, so refuse instead.
  if (!h5::store_fixed_string(text, field))
    throw std::invalid_argument(fmt::format(
        "{} '{}' is longer than the {} bytes the points table holds", field_name, text, N - 1));
}

template <typename Value, std::size_t N>
Value parse_name(std::optional<Value> (*parse)(std::string_view), const char (&field)[N],
                 std::string_view field_name) {
  const std::string text = h5::load_fixed_string(field);
  if (auto value = parse(text)) return *value;
  throw std::runtime_error(fmt::format("unknown {} '{}' in the points table", field_name, text));
}

h5::Handle build_point_row_type() {
  h5::RowType row(sizeof(PointRow));
  row.add(COLLBENCH_MEMBER(PointRow, point_id, H5T_NATIVE_INT64))
      .text(COLLBENCH_TEXT(PointRow, backend))
      .text(COLLBENCH_TEXT(PointRow, collective))
      .text(COLLBENCH_TEXT(PointRow, datatype))
      .text(COLLBENCH_TEXT(PointRow, redop))
      .text(COLLBENCH_TEXT(PointRow, placement))
      .text(COLLBENCH_TEXT(PointRow, algorithm))
      .text(COLLBENCH_TEXT(PointRow, protocol))
      .text(COLLBENCH_TEXT(PointRow, chosen_algorithm))
      .text(COLLBENCH_TEXT(PointRow, chosen_protocol))
      .add(COLLBENCH_MEMBER(PointRow, chosen_channels, H5T_NATIVE_INT32))
      .text(COLLBENCH_TEXT(PointRow, mode))
      .text(COLLBENCH_TEXT(PointRow, sync))
      .text(COLLBENCH_TEXT(PointRow, stop_reason))
      .add(COLLBENCH_MEMBER(PointRow, nranks, H5T_NATIVE_INT32))
      .add(COLLBENCH_MEMBER(PointRow, root, H5T_NATIVE_INT32))
      .add(COLLBENCH_MEMBER(PointRow, in_place, H5T_NATIVE_INT8))
      .add(COLLBENCH_MEMBER(PointRow, size_bytes, H5T_NATIVE_UINT64))
      .add(COLLBENCH_MEMBER(PointRow, count, H5T_NATIVE_UINT64))
      .add(COLLBENCH_MEMBER(PointRow, samples, H5T_NATIVE_UINT64))
      .add(COLLBENCH_MEMBER(PointRow, rounds, H5T_NATIVE_INT32))
      .add(COLLBENCH_MEMBER(PointRow, ops_per_sample, H5T_NATIVE_INT32))
      .add(COLLBENCH_MEMBER(PointRow, invalid_samples, H5T_NATIVE_UINT64))
      .add(COLLBENCH_MEMBER(PointRow, window_margin_us, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, clock_error_us, H5T_NATIVE_DOUBLE));
  add_summary_columns(row, offsetof(PointRow, times))
      .add(COLLBENCH_MEMBER(PointRow, algbw_GBps, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, busbw_GBps, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, wrong, H5T_NATIVE_INT64))
      .add(COLLBENCH_MEMBER(PointRow, overlap_collective_slowdown, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, overlap_load_slowdown, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, overlap_hidden, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, overlap_hidden_ci_low, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, overlap_hidden_ci_high, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, osu_mean_us, H5T_NATIVE_DOUBLE))
      .add(COLLBENCH_MEMBER(PointRow, sample_step_us, H5T_NATIVE_DOUBLE));
  return row.done();
}

}  // namespace

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
  store_name(name(point.start), row.sync, "sync");
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
  row.wrong = point.wrong;
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
  key.collective = parse_name(parse_collective, row.collective, "collective");
  key.datatype = parse_name(parse_datatype, row.datatype, "datatype");
  // Collectives that reduce nothing store "none"; their key keeps the default op.
  if (uses_reduce_op(key.collective)) key.op = parse_name(parse_reduce_op, row.redop, "redop");
  key.placement = parse_name(parse_placement, row.placement, "placement");
  key.algorithm = h5::load_fixed_string(row.algorithm);
  key.protocol = h5::load_fixed_string(row.protocol);
  store_choice_name(h5::load_fixed_string(row.chosen_algorithm), point.chosen.algorithm);
  store_choice_name(h5::load_fixed_string(row.chosen_protocol), point.chosen.protocol);
  point.chosen.channels = row.chosen_channels;
  key.mode = parse_name(parse_mode, row.mode, "mode");
  point.stop_reason = parse_name(parse_stop_reason, row.stop_reason, "stop_reason");
  key.nranks = row.nranks;
  key.root = root_of(key.collective, row.root);  // no collective had one before schema 17
  key.in_place = row.in_place != 0;
  key.size_bytes = row.size_bytes;
  key.count = row.count;
  summary.samples = row.samples;
  point.ops_per_sample = row.ops_per_sample;
  // Files before schema 4 have no sync column: their samples all started at a barrier.
  if (row.sync[0] != '\0') point.start = parse_name(parse_sample_start, row.sync, "sync");
  point.invalid_samples = row.invalid_samples;
  if (point.start == SampleStart::window) {
    point.window_margin_s = row.window_margin_us / kMicrosecondsPerSecond;
    point.clock_error_s = row.clock_error_us / kMicrosecondsPerSecond;
  }
  read_summary_columns(row.times, summary);
  point.algbw_gbps = row.algbw_GBps;
  point.busbw_gbps = row.busbw_GBps;
  point.wrong = row.wrong;
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

hid_t point_row_type() {
  static const h5::Handle type = build_point_row_type();
  return type.get();
}

}  // namespace collbench
