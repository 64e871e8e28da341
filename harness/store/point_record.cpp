#include "harness/store/point_record.h"

#include "collectives/collective.h"
#include "harness/store/layout.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"

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

hid_t point_row_type() {
  static const h5::Handle type = COLLBENCH_ROW_TYPE(
      PointRow, point_id, backend, collective, datatype, redop, placement, algorithm, protocol,
      chosen_algorithm, chosen_protocol, chosen_channels, mode, sync, stop_reason, nranks, root,
      in_place, size_bytes, count, samples, rounds, ops_per_sample, invalid_samples,
      window_margin_us, clock_error_us, times, algbw_GBps, busbw_GBps, wrong, wrong_after_timing,
      implausible, overlap_collective_slowdown, overlap_load_slowdown, overlap_hidden, overlap_hidden_ci_low,
      overlap_hidden_ci_high, osu_mean_us, sample_step_us);
  return type.get();
}

}  // namespace collbench
