#pragma once
// The /points table: a row per point, its key and statistics, times in microseconds. Its columns
// are declared once, in point_record.cpp (COLLBENCH_POINT_COLUMNS); the row's compound type, the
// columns older files lack, the copies to and from a PointResult and the cells CSV and JSON
// print follow from there, and results/SCHEMA.md's table of them is checked against a file the
// binary writes.
#include <cstdint>
#include <functional>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/plan/point.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"

namespace collbench {

// The memory layout of a row, built once; files store it packed.
hid_t point_row_type();

// The point_id of a row appended but not yet finished, so that a reader who meets it (the last
// row of a killed run, /points' finished_rows not counting it) cannot take it for a point.
inline constexpr std::int64_t kUnnumberedRow = -1;

// Writes `point` as the last row, `row`, of `table`, numbered `point_id`, the table's extent set
// to hold it (writers append: the table's length is known to them, not read back per point).
// Throws std::invalid_argument, the table as it was, when a name does not fit its column.
void write_point_row(hid_t table, hsize_t row, const PointResult& point, std::int64_t point_id);

// The first `rows` rows of `table` as points: key, summary, bandwidths, validation and stop
// reason (rank medians and samples live elsewhere); in a file of an older schema the columns it
// lacks read as zeros. Before schema 10 a killed run may leave a last row of zeros, the table
// grown before its row was written: unless `complete`, such a row is dropped. Throws
// std::runtime_error on a name it does not know.
std::vector<PointResult> read_point_rows(hid_t table, std::size_t rows, bool complete);

// A /points cell as stored: text, a whole number, or a floating-point one (NaN where it does not
// apply).
using PointCell = std::variant<std::string_view, std::int64_t, std::uint64_t, double>;
using PointCellVisitor = std::function<void(std::string_view column, const PointCell& value)>;

// Calls `cell(name, value)` for each column of `point`'s row as write_point_row stores it, in
// the file's order, the summary's times one by one; all but point_id, the writer's numbering.
// For the printers that carry every column (report/point_fields.cpp), so that a new column
// reaches them too.
void for_each_point_cell(const PointResult& point, const PointCellVisitor& cell);

// Schema 16 named the median's interval for what it covers: this launch's median, the spread
// between launches not in it. Older files call its columns time_ci_low_us and time_ci_high_us,
// in /points and in /links.
inline constexpr h5::RenamedColumn kMedianIntervalRenamedInSchema16[] = {
    {"time_median_ci_low_us", "time_ci_low_us"}, {"time_median_ci_high_us", "time_ci_high_us"}};

}  // namespace collbench
