#pragma once
// A row of the /points table: a point's key and statistics, times in microseconds. Field names
// carry units, so `pandas.DataFrame(f["points"][()])` is self-describing.
#include <cstdint>
#include <string_view>

#include "harness/plan/point.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"
#include "harness/store/summary_columns.h"

namespace collbench {

struct PointRow {
  std::int64_t point_id;
  char backend[24];
  char collective[16];
  char datatype[16];
  char redop[16];
  char placement[16];
  char algorithm[32];  // empty: the library chose (schema 3; empty when read from older files)
  char protocol[32];
  char chosen_algorithm[16];  // the library's own account of its choice (schema 5; empty if none)
  char chosen_protocol[16];
  std::int32_t chosen_channels;  // 0 when not reported
  char mode[16];
  char sync[16];  // how samples started: window, barrier (schema 4; empty in older files)
  char stop_reason[16];
  std::int32_t nranks;
  std::int32_t root;  // schema 17; kNoRoot for collectives without one
  std::int8_t in_place;
  std::uint64_t size_bytes;
  std::uint64_t count;
  std::uint64_t samples;
  std::int32_t rounds;  // schema 6; 0 in older files, which measured in one round
  std::int32_t ops_per_sample;
  std::uint64_t invalid_samples;  // schema 4
  double window_margin_us;        // schema 4; NaN outside window starts
  double clock_error_us;          // schema 4; NaN outside window starts
  SummaryColumns times;
  double algbw_GBps;
  double busbw_GBps;
  std::int64_t wrong;  // the check before timing; kNotChecked (-1) when not validated
  // Schema 19: the check after the last round's timed samples (kNotChecked when not run, read
  // as such from older files), and the plausibility mark's name, empty at a plausible point.
  std::int64_t wrong_after_timing;
  char implausible[24];
  // Schema 13, --overlap-load (stats/overlap.h): NaN at points measured without a load; 0 in
  // older files, where a slowdown of 0 says it was not measured.
  double overlap_collective_slowdown;
  double overlap_load_slowdown;
  double overlap_hidden;
  double overlap_hidden_ci_low;
  double overlap_hidden_ci_high;
  // Schema 14: OSU's figure (PointResult::osu_mean_s); NaN where it does not apply, 0 in older
  // files.
  double osu_mean_us;
  // Schema 15: PointResult::sample_step_s; 0 where the timer showed no step, and in older files.
  double sample_step_us;
};

// The point_id of a row appended but not yet finished, so that a reader who meets it (the last
// row of a killed run, /points' finished_rows not counting it) cannot take it for a point.
inline constexpr std::int64_t kUnnumberedRow = -1;

// Throws std::invalid_argument when a name does not fit its field.
PointRow to_point_row(const PointResult& point, std::int64_t point_id);
// Fills the key, summary, bandwidths, validation and stop reason; rank medians and samples live
// elsewhere. Throws std::runtime_error on a name it does not know.
PointResult from_point_row(const PointRow& row);

// The memory layout of PointRow, built once; files store it packed.
hid_t point_row_type();

// Columns of /points that files of an older schema version lack (read as zeros: empty strings):
// algorithm and protocol since schema 3, sync to clock_error_us since 4, the chosen_ ones since 5,
// rounds since 6, the overlap_ ones since 13, osu_mean_us since 14, sample_step_us since 15,
// root since 17, wrong_after_timing and implausible since 19.
inline constexpr std::string_view kPointColumnsAddedAfterSchema2[] = {
    "algorithm",       "protocol",         "sync",           "invalid_samples",
    "window_margin_us", "clock_error_us",  "chosen_algorithm", "chosen_protocol",
    "chosen_channels", "rounds",           "overlap_collective_slowdown",
    "overlap_load_slowdown", "overlap_hidden", "overlap_hidden_ci_low",
    "overlap_hidden_ci_high", "osu_mean_us", "sample_step_us", "root",
    "wrong_after_timing", "implausible"};

// Schema 16 named the median's interval for what it covers: this launch's median, the spread
// between launches not in it. Older files call its columns time_ci_low_us and time_ci_high_us,
// in /points and in /links.
inline constexpr h5::RenamedColumn kMedianIntervalRenamedInSchema16[] = {
    {"time_median_ci_low_us", "time_ci_low_us"}, {"time_median_ci_high_us", "time_ci_high_us"}};

inline constexpr h5::ColumnHistory kPointColumnHistory = {
    .added = kPointColumnsAddedAfterSchema2, .renamed = kMedianIntervalRenamedInSchema16};

}  // namespace collbench
