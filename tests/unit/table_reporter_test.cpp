#include "harness/report/table_reporter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "harness/fit/curve_fits.h"
#include "harness/report/reporter.h"
#include "harness/plan/point.h"
#include "harness/report/convergence_mark.h"
#include "harness/report/link_bound_report.h"
#include "harness/report/model_report.h"
#include "harness/report/structured_reporters.h"
#include "harness/store/point_record.h"

namespace collbench {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_ws(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; in >> field;) fields.push_back(field);
  return fields;
}

std::vector<std::string> split_on(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = line.find(sep, start);
    fields.push_back(line.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return fields;
}

// Lines that are neither comments nor blank: the table's data.
std::vector<std::vector<std::string>> data_lines(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : split_lines(text)) {
    const auto fields = split_ws(line);
    if (fields.empty() || fields[0].starts_with("#")) continue;
    rows.push_back(fields);
  }
  return rows;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  for (const auto& line : split_lines(text))
    if (line.starts_with(prefix)) found.push_back(line);
  return found;
}

// A point with a synthetic, fully specified result.
PointResult point(CollectiveKind collective, std::size_t size, std::size_t count, Mode mode,
                  bool in_place, double median_s, double p99_s, double algbw, double busbw,
                  std::int64_t wrong, DataType type = DataType::float32, ReduceOp op = ReduceOp::sum) {
  PointResult p;
  p.key.backend = "mpi";
  p.key.collective = collective;
  p.key.datatype = type;
  p.key.op = op;
  p.key.placement = Placement::world;
  p.key.nranks = 4;
  p.key.mode = mode;
  p.key.in_place = in_place;
  p.key.size_bytes = size;
  p.key.count = count;
  p.summary.samples = 25;
  p.summary.median = median_s;
  p.summary.p99 = p99_s;
  p.summary.min = median_s * 0.9;
  p.summary.max = p99_s * 1.1;
  p.summary.p5 = median_s * 0.95;
  p.summary.p95 = p99_s * 0.98;
  p.summary.mean = median_s * 1.01;
  p.summary.stddev = median_s * 0.02;
  p.summary.ci_low = median_s * 0.99;
  p.summary.ci_high = median_s * 1.01;
  p.algbw_gbps = algbw;
  p.busbw_gbps = busbw;
  p.checks.before_timing = wrong;
  p.stop_reason = mode == Mode::latency ? StopReason::converged : StopReason::fixed_count;
  p.ops_per_sample = mode == Mode::latency ? 1 : 20;
  p.key.sync = mode == Mode::latency ? SampleStart::window : SampleStart::barrier;  // as run does
  return p;
}

RunDescription run_description() {
  RunDescription run;
  run.collbench_version = "0.1.0";
  run.backend = "mpi";
  run.backend_version = "Open MPI 4.1";
  run.nranks = 4;
  run.nodes = 1;
  run.hosts = {"node0"};
  run.start_utc = "2026-01-01T00:00:00Z";
  run.command_line = "collbench run";
  return run;
}

// Rows of allreduce out of place, both modes: sizes 1 KiB, 1 MiB and 64 MiB, the last slow
// enough that its time prints without decimals.
std::vector<std::vector<PointResult>> allreduce_rows(std::int64_t wrong = 0) {
  const auto AR = CollectiveKind::allreduce;
  return {
      {point(AR, 1024, 256, Mode::latency, false, 12.5e-6, 20.25e-6, 0.08, 0.12, wrong),
       point(AR, 1024, 256, Mode::bandwidth, false, 10.25e-6, 11e-6, 0.1, 0.15, wrong)},
      {point(AR, 1 << 20, 262144, Mode::latency, false, 150.5e-6, 180.75e-6, 6.97, 10.45, wrong),
       point(AR, 1 << 20, 262144, Mode::bandwidth, false, 100e-6, 110e-6, 10.49, 15.73, wrong)},
      {point(AR, 64 << 20, 16777216, Mode::latency, false, 0.25, 0.3, 0.27, 0.4, wrong),
       point(AR, 64 << 20, 16777216, Mode::bandwidth, false, 0.2, 0.21, 0.34, 0.5, wrong)},
  };
}

std::string render(const std::vector<std::vector<PointResult>>& rows) {
  std::ostringstream out;
  TableReporter reporter(out);
  reporter.begin(run_description());
  for (const auto& row : rows) reporter.row(row);
  reporter.end();
  return out.str();
}

double avg_bus_bandwidth(const std::string& line) {
  const std::string label = "# Avg bus bandwidth    : ";
  EXPECT_TRUE(line.starts_with(label)) << line;
  return std::stod(line.substr(label.size()));
}

TEST(TableReporter, DataLinesHaveNcclTestsFieldsInOrder) {
  const std::string text = render(allreduce_rows());
  const auto rows = data_lines(text);
  ASSERT_EQ(rows.size(), 3u) << text;
  // nccl-tests' 13: size count type redop root | time algbw busbw #wrong out of place | the same
  // in place, N/A when not measured; then collbench's: latency median p99 | ci
  const std::vector<std::vector<std::string>> expected{
      {"1024", "256", "float", "sum", "-1", "10.25", "0.10", "0.15", "0", "N/A", "N/A", "N/A",
       "N/A", "12.50", "20.25", "1.0%"},
      {"1048576", "262144", "float", "sum", "-1", "100.00", "10.49", "15.73", "0", "N/A", "N/A",
       "N/A", "N/A", "150.50", "180.75", "1.0%"},
      {"67108864", "16777216", "float", "sum", "-1", "200000", "0.34", "0.50", "0", "N/A", "N/A",
       "N/A", "N/A", "250000", "300000", "1.0%"},
  };
  EXPECT_EQ(rows, expected) << text;
}

TEST(TableReporter, ColumnHeaderNamesTheFieldsInOrder) {
  const std::string text = render(allreduce_rows());
  bool found = false;
  for (const auto& line : split_lines(text)) {
    const auto fields = split_ws(line);
    if (fields.size() > 1 && fields[0] == "#" && fields[1] == "size") {
      found = true;
      EXPECT_EQ(fields, (std::vector<std::string>{"#", "size", "count", "type", "redop", "root",
                                                  "time", "algbw", "busbw", "#wrong", "time",
                                                  "algbw", "busbw", "#wrong", "median", "p99",
                                                  "ci"}))
          << line;
    }
  }
  EXPECT_TRUE(found) << text;
}

TEST(TableReporter, FooterCountsWrongValuesAndAveragesBusBandwidth) {
  const std::string text = render(allreduce_rows());
  const auto oob = lines_starting(text, "# Out of bounds values");
  ASSERT_EQ(oob.size(), 1u) << text;
  EXPECT_EQ(split_ws(oob[0]), (std::vector<std::string>{"#", "Out", "of", "bounds", "values", ":",
                                                        "0", "OK"}));
  const auto avg = lines_starting(text, "# Avg bus bandwidth");
  ASSERT_EQ(avg.size(), 1u) << text;
  // The mean of the busbw column as printed.
  double sum = 0;
  const auto rows = data_lines(text);
  for (const auto& row : rows) sum += std::stod(row[7]);
  EXPECT_NEAR(avg_bus_bandwidth(avg[0]), sum / rows.size(), 1e-4) << avg[0];
  EXPECT_NEAR(avg_bus_bandwidth(avg[0]), (0.15 + 15.73 + 0.5) / 3, 1e-4) << avg[0];
}

TEST(TableReporter, WrongElementsFailTheFooter) {
  const std::string text = render(allreduce_rows(3));
  const auto oob = lines_starting(text, "# Out of bounds values");
  ASSERT_EQ(oob.size(), 1u) << text;
  EXPECT_EQ(split_ws(oob[0]), (std::vector<std::string>{"#", "Out", "of", "bounds", "values", ":",
                                                        "9", "FAILED"}));
  for (const auto& row : data_lines(text)) EXPECT_EQ(row[8], "3");
}

// #wrong shows the check that found more; a comment line after the row says which it was, and
// another why a point's numbers cannot be true; the table's fields stay nccl-tests'.
TEST(TableReporter, NamesTheFailedCheckAndTheImplausiblePointAfterItsRow) {
  auto rows = allreduce_rows(0);
  rows[1][1].checks.after_timing = 262144;
  rows[2][1].implausible = Implausible::busbw_above_copy;
  RunDescription run = run_description();
  run.plausibility = {.copy = {{4096, 60}, {1 << 20, 11.25}}, .empty_call_s = 52e-9};
  std::ostringstream out;
  TableReporter reporter(out);
  reporter.begin(run);
  for (const auto& row : rows) reporter.row(row);
  reporter.end();
  const std::string text = out.str();
  const auto lines = data_lines(text);
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0][8], "0");
  EXPECT_EQ(lines[1][8], "262144");
  EXPECT_EQ(lines[2][8], "0");
  const auto all = split_lines(text);
  const auto after = [&](const std::string& row_start) {
    for (std::size_t i = 0; i + 1 < all.size(); ++i)
      if (all[i].find(row_start) != std::string::npos) return all[i + 1];
    return std::string();
  };
  EXPECT_EQ(after("     1048576"),
            "# #wrong at 1048576 B out of place: 0 wrong in the check before timing, 262144 wrong "
            "in the check after timing")
      << text;
  EXPECT_EQ(after("    67108864"),
            "# implausible at 67108864 B out of place bandwidth: busbw 0.5 GB/s is more than 4x "
            "the fastest copy of its size here (11.25 GB/s)")
      << text;
  EXPECT_EQ(lines_starting(text, "# plausible: on 2 ranks or more, busbw above 4x the fastest "
                                 "copy of the point's size here (GB/s: 4 KiB 60, 1 MiB 11.2)")
                .size(),
            1u)
      << text;
  EXPECT_EQ(lines_starting(text, "# #wrong").size(), 1u);
  EXPECT_EQ(lines_starting(text, "# implausible").size(), 1u);
  // Without a recorded bound (older files), no line claims one.
  EXPECT_TRUE(lines_starting(render(allreduce_rows(0)), "# plausible").empty());
}

TEST(TableReporter, UncheckedPointsPrintNA) {
  const std::string text = render(allreduce_rows(kNotChecked));
  const auto rows = data_lines(text);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 16u);
    EXPECT_EQ(row[8], "N/A");
  }
  const auto oob = lines_starting(text, "# Out of bounds values");
  ASSERT_EQ(oob.size(), 1u);
  EXPECT_NE(oob[0].find("N/A"), std::string::npos) << oob[0];
  EXPECT_EQ(oob[0].find("OK"), std::string::npos) << oob[0];
}

TEST(TableReporter, InPlaceAddsASecondGroupOfFourColumns) {
  const auto AR = CollectiveKind::allreduce;
  const std::vector<std::vector<PointResult>> rows{
      {point(AR, 4096, 1024, Mode::latency, false, 20e-6, 30e-6, 0.2, 0.3, 0),
       point(AR, 4096, 1024, Mode::bandwidth, false, 16e-6, 17e-6, 0.26, 0.38, 0),
       point(AR, 4096, 1024, Mode::latency, true, 22e-6, 33e-6, 0.19, 0.28, 0),
       point(AR, 4096, 1024, Mode::bandwidth, true, 18e-6, 19e-6, 0.23, 0.34, kNotChecked)},
      {point(AR, 8192, 2048, Mode::latency, false, 40e-6, 50e-6, 0.2, 0.3, 0),
       point(AR, 8192, 2048, Mode::bandwidth, false, 32e-6, 34e-6, 0.26, 0.38, 0),
       point(AR, 8192, 2048, Mode::latency, true, 44e-6, 55e-6, 0.19, 0.28, 0),
       point(AR, 8192, 2048, Mode::bandwidth, true, 36e-6, 38e-6, 0.23, 0.34, 0)},
  };
  const std::string text = render(rows);
  const auto lines = data_lines(text);
  ASSERT_EQ(lines.size(), 2u) << text;
  EXPECT_EQ(lines[0], (std::vector<std::string>{"4096", "1024", "float", "sum", "-1",
                                                 "16.00", "0.26", "0.38", "0",      // out of place
                                                 "18.00", "0.23", "0.34", "N/A",    // in place
                                                 "20.00", "30.00", "22.00", "33.00", "1.0%"}))
      << text;
  EXPECT_EQ(lines[1].size(), 18u);
  EXPECT_EQ(lines[1][9], "36.00");

  // The header has two time/algbw/busbw/#wrong groups.
  for (const auto& line : split_lines(text)) {
    const auto fields = split_ws(line);
    if (fields.size() > 1 && fields[0] == "#" && fields[1] == "size") {
      EXPECT_EQ(fields, (std::vector<std::string>{"#", "size", "count", "type", "redop", "root",
                                                  "time", "algbw", "busbw", "#wrong", "time",
                                                  "algbw", "busbw", "#wrong", "median", "p99",
                                                  "median", "p99", "ci"}));
    }
  }
  // nccl-tests averages the bus bandwidth over both groups.
  double sum = 0;
  int n = 0;
  for (const auto& row : lines) {
    sum += std::stod(row[7]) + std::stod(row[11]);
    n += 2;
  }
  const auto avg = lines_starting(text, "# Avg bus bandwidth");
  ASSERT_EQ(avg.size(), 1u);
  EXPECT_NEAR(avg_bus_bandwidth(avg[0]), sum / n, 1e-4);
  EXPECT_NEAR(avg_bus_bandwidth(avg[0]), 0.36, 1e-4);
  const auto oob = lines_starting(text, "# Out of bounds values");
  ASSERT_EQ(oob.size(), 1u);
  EXPECT_EQ(split_ws(oob[0]).back(), "OK");
}

// `report` prints a stored run a row per key: a window-started latency beside its bandwidth loop,
// in place or not, as run printed them.
TEST(SameRow, HoldsEveryModeAndItsSyncOfOneSize) {
  const auto AR = CollectiveKind::allreduce;
  const PointKey latency = point(AR, 4096, 1024, Mode::latency, false, 20e-6, 30e-6, 0.2, 0.3, 0).key;
  PointKey bandwidth = point(AR, 4096, 1024, Mode::bandwidth, true, 20e-6, 30e-6, 0.2, 0.3, 0).key;
  ASSERT_NE(latency.sync, bandwidth.sync);
  EXPECT_TRUE(same_row(latency, bandwidth));
  bandwidth.size_bytes *= 2;
  EXPECT_FALSE(same_row(latency, bandwidth));
}

TEST(TableReporter, BandwidthOnlyLeavesLatencyColumnsEmpty) {
  const auto AR = CollectiveKind::allreduce;
  const std::string text =
      render({{point(AR, 1024, 256, Mode::bandwidth, false, 10e-6, 12e-6, 0.1, 0.15, 0)}});
  const auto rows = data_lines(text);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1024", "256", "float", "sum", "-1", "10.00",
                                                "0.10", "0.15", "0", "N/A", "N/A", "N/A", "N/A",
                                                "-", "-", "1.0%"}));
}

// The trailing column shows the widest interval of the row and marks a point that stopped short
// of its target, so that nccl-tests' 13 fields stay where scrapers expect them.
TEST(TableReporter, UnconvergedPointsAreMarkedInTheLastColumn) {
  const auto AR = CollectiveKind::allreduce;
  auto converged_bw = point(AR, 1024, 256, Mode::bandwidth, false, 10e-6, 12e-6, 0.1, 0.15, 0);
  auto wide = point(AR, 1024, 256, Mode::latency, false, 20e-6, 90e-6, 0.05, 0.08, 0);
  wide.stop_reason = StopReason::max_time;
  wide.summary.ci_low = 10e-6;
  wide.summary.ci_high = 41e-6;  // +105% of the median: no precision, said as such
  auto few = point(AR, 2048, 512, Mode::latency, false, 20e-6, 30e-6, 0.1, 0.15, 0);
  few.stop_reason = StopReason::time_limit;
  few.summary.samples = 3;  // no 95% interval
  auto unmarked = point(AR, 4096, 1024, Mode::latency, false, 20e-6, 30e-6, 0.2, 0.3, 0);
  const auto rows = data_lines(render({{converged_bw, wide}, {few}, {unmarked}}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].back(), ">100%!");
  EXPECT_EQ(rows[1].back(), "-!");
  EXPECT_EQ(rows[2].back(), "1.0%");
  for (const auto& row : rows) EXPECT_EQ(row.size(), 16u);
}

// Three rounds of 20 kept samples of one rank, tightly around each of `medians_s`: rounds that
// agree when the medians are equal, and disagree otherwise.
void measure_in_rounds(PointResult& p, const std::vector<double>& medians_s) {
  p.samples = RawSamples{};
  p.samples.nranks = 1;
  p.samples.round_starts.clear();
  for (double median : medians_s) {
    p.samples.round_starts.push_back(p.samples.per_rank_seconds.size());
    for (int i = 0; i < 20; ++i)
      p.samples.per_rank_seconds.push_back(median * (1 + 0.001 * (i - 10)));
  }
}

// The cases of the issue: rounds 2x apart, and an interval 271% above the median.
struct Precisions {
  PointResult disagreeing = point(CollectiveKind::allgather, 256, 64, Mode::latency, false, 1.1e-6,
                                  3e-6, 0.2, 0.1, 0);
  PointResult disagreeing_converged = disagreeing;
  PointResult wider_than_value = disagreeing;
  PointResult disagreeing_cut = disagreeing;
  Precisions() {
    measure_in_rounds(disagreeing, {1e-6, 1.1e-6, 2e-6});
    disagreeing.stop_reason = StopReason::round_noise;
    disagreeing.summary.ci_low = 0.3e-6;
    disagreeing.summary.ci_high = 4.08e-6;  // +271%
    disagreeing_cut = disagreeing;
    disagreeing_cut.stop_reason = StopReason::max_time;
    // Rounds a little apart whose interval, spread included, still met the target.
    measure_in_rounds(disagreeing_converged, {1.1e-6, 1.1e-6, 1.11e-6});
    measure_in_rounds(wider_than_value, {1.1e-6, 1.1e-6, 1.1e-6});
    wider_than_value.stop_reason = StopReason::max_time;
    wider_than_value.summary.ci_high = 4.08e-6;
  }
};

TEST(TableReporter, RoundsThatDisagreeShowTheirSpreadInsteadOfAnInterval) {
  const Precisions p;
  ASSERT_FALSE(rounds_agree(kept_round_medians(p.disagreeing_converged)));
  const auto rows = data_lines(render(
      {{p.disagreeing}, {p.disagreeing_converged}, {p.wider_than_value}, {p.disagreeing_cut}}));
  ASSERT_EQ(rows.size(), 4u);
  // (2 - 1) / (2 + 1): the round medians lie within ±33% of the middle of their range; that
  // spread is why the point stopped, and the token says it without a `!`.
  EXPECT_EQ(rows[0].back(), "+-33%");
  EXPECT_EQ(rows[1].back(), "1.0%");  // converged: the interval, the spread inside it
  EXPECT_EQ(rows[2].back(), ">100%!");
  EXPECT_EQ(rows[3].back(), "+-33%!");  // cut by --max-time: more time would have helped
}

// However wide an interval, the column never prints it as a precision above 100%.
TEST(TableReporter, NoIntervalAbove100PercentIsPrinted) {
  const auto AR = CollectiveKind::allreduce;
  std::vector<std::vector<PointResult>> rows;
  for (double high : {1.5, 1.999, 2.0, 2.001, 3.71, 4.71, 1e3}) {
    auto p = point(AR, 1024, 256, Mode::latency, false, 1e-6, 2e-6, 0.1, 0.1, 0);
    p.summary.ci_high = high * 1e-6;
    p.stop_reason = StopReason::max_time;
    rows.push_back({p});
  }
  for (const auto& row : data_lines(render(rows))) {
    const std::string& ci = row.back();
    if (ci.starts_with(">")) continue;
    EXPECT_LE(std::stod(ci), 100) << ci;
  }
  EXPECT_EQ(data_lines(render(rows))[2].back(), "100%!");
  EXPECT_EQ(data_lines(render(rows))[3].back(), ">100%!");
}

// Each mark the section uses gets one comment line, before the first row that carries it; a
// section whose rows carry none gets none.
TEST(TableReporter, EachMarkUsedIsExplainedOncePerSection) {
  const Precisions p;
  const auto AR = CollectiveKind::allreduce;
  auto few = point(AR, 8, 2, Mode::latency, false, 1e-6, 2e-6, 0.1, 0.1, 0);
  few.summary.samples = 4;
  few.stop_reason = StopReason::time_limit;
  const auto clean = allreduce_rows();
  const std::string text = render({clean[0], clean[1], {few}, {p.disagreeing}, {p.wider_than_value},
                                   {p.disagreeing}});
  std::vector<std::string> legends;
  std::vector<std::string> before_first;  // the legends printed before each marked row
  for (const auto& line : split_lines(text)) {
    if (line.starts_with("# ci ")) legends.push_back(line);
    const auto fields = split_ws(line);
    if (!fields.empty() && !fields[0].starts_with("#") && fields.back() != "1.0%")
      before_first.push_back(std::to_string(legends.size()));
  }
  // allreduce: "-!" alone uses "-" and "!"; the allgather section starts its own legend, "!"
  // first with ">100%!", since "+-33%" carries none.
  ASSERT_EQ(legends.size(), 2u + 3u) << text;
  EXPECT_EQ(legends[0], std::string(legend(Mark::no_interval)));
  EXPECT_EQ(legends[1], std::string(legend(Mark::short_of_target)));
  EXPECT_EQ(legends[2], std::string(legend(Mark::rounds_disagree)));
  EXPECT_EQ(legends[3], std::string(legend(Mark::wider_than_value)));
  EXPECT_EQ(legends[4], std::string(legend(Mark::short_of_target)));
  EXPECT_EQ(before_first, (std::vector<std::string>{"2", "3", "5", "5"})) << text;
  EXPECT_EQ(lines_starting(render({clean[0], clean[1]}), "# ci ").size(), 0u);
}

// A section whose latency points were read in steps says once, before its first row, what the
// step does to their precision, in the figures of that row; a section read without steps, never.
TEST(TableReporter, TheTimersStepIsExplainedOncePerSection) {
  const auto AR = CollectiveKind::allreduce;
  std::vector<std::vector<PointResult>> rows;
  for (std::uint64_t size : {8, 16}) {
    auto p = point(AR, size, size / 4, Mode::latency, false, 0.6e-6, 0.7e-6, 0.01, 0.01, 0);
    p.sample_step_s = 10.02e-9;
    rows.push_back({p});
  }
  const auto lines = split_lines(render(rows));
  const auto said = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& line) { return line.starts_with("# ci: "); });
  ASSERT_NE(said, lines.end());
  EXPECT_NE(said->find("steps of 10.02 ns"), std::string::npos) << *said;
  EXPECT_NE(said->find("2 steps (3.3% of a 0.60 us median)"), std::string::npos) << *said;
  EXPECT_FALSE(said[1].starts_with("#"));  // the row it explains follows
  EXPECT_EQ(lines_starting(render(rows), "# ci: ").size(), 1u);
  EXPECT_EQ(lines_starting(render(allreduce_rows()), "# ci: ").size(), 0u);
}

// csv and json carry what the table's column shows, and the rounds behind it.
TEST(JsonLinesReporter, CarriesTheTablesPrecisionAndTheRoundsSpread) {
  const Precisions p;
  std::ostringstream out;
  JsonLinesReporter reporter(out);
  reporter.row(std::vector{p.disagreeing});
  reporter.row(std::vector{p.wider_than_value});
  reporter.row(allreduce_rows()[0]);
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 4u);
  const auto disagreeing = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(disagreeing.at("ci_mark"), "+-33%");
  EXPECT_NEAR(disagreeing.at("round_spread_rel").get<double>(), 1.0 / 3, 1e-12);
  EXPECT_EQ(disagreeing.at("rounds_agree"), false);
  EXPECT_EQ(disagreeing.at("converged"), false);
  const auto wide = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(wide.at("ci_mark"), ">100%!");
  EXPECT_EQ(wide.at("round_spread_rel"), 0.0);
  EXPECT_EQ(wide.at("rounds_agree"), true);
  const auto one_round = nlohmann::json::parse(lines[2]);  // no rounds held: nothing to say
  EXPECT_EQ(one_round.at("ci_mark"), "1.0%");
  EXPECT_TRUE(one_round.at("round_spread_rel").is_null());
  EXPECT_TRUE(one_round.at("rounds_agree").is_null());
}

TEST(TableReporter, LatencyOnlyStandsInForTheHeadline) {
  const auto AR = CollectiveKind::allreduce;
  const std::string text =
      render({{point(AR, 1024, 256, Mode::latency, false, 14e-6, 19e-6, 0.07, 0.11, 0)}});
  const auto rows = data_lines(text);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1024", "256", "float", "sum", "-1", "14.00",
                                                "0.07", "0.11", "0", "N/A", "N/A", "N/A", "N/A",
                                                "14.00", "19.00", "1.0%"}));
}

TEST(TableReporter, OneSectionAndFooterPerCollective) {
  auto rows = allreduce_rows();
  const auto AG = CollectiveKind::allgather;
  rows.push_back({point(AG, 1024, 64, Mode::latency, false, 9e-6, 12e-6, 0.11, 0.09, 0),
                  point(AG, 1024, 64, Mode::bandwidth, false, 8e-6, 9e-6, 0.13, 0.1, 0)});
  rows.push_back({point(AG, 4096, 256, Mode::latency, false, 9e-6, 12e-6, 0.45, 0.34, 0),
                  point(AG, 4096, 256, Mode::bandwidth, false, 8e-6, 9e-6, 0.51, 0.3, 0)});
  const std::string text = render(rows);
  const auto avg = lines_starting(text, "# Avg bus bandwidth");
  ASSERT_EQ(avg.size(), 2u) << text;
  EXPECT_NEAR(avg_bus_bandwidth(avg[0]), (0.15 + 15.73 + 0.5) / 3, 1e-4);
  EXPECT_NEAR(avg_bus_bandwidth(avg[1]), (0.1 + 0.3) / 2, 1e-4);
  EXPECT_EQ(lines_starting(text, "# Out of bounds values").size(), 2u);
  // The last line names every section's average, so "the last average" is never ambiguous.
  const auto summary = lines_starting(text, "# collbench avg bus bandwidth (GB/s) by section: ");
  ASSERT_EQ(summary.size(), 1u) << text;
  EXPECT_EQ(split_lines(text).back(), summary[0]);
  EXPECT_TRUE(summary[0].ends_with(": allreduce/world/4 5.4600, allgather/world/4 0.2000"))
      << summary[0];
  const auto lines = data_lines(text);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3][1], "64");     // allgather's count is one rank's share
  EXPECT_EQ(lines[3][3], "none");   // allgather reduces nothing
  // The allreduce footer comes before the first allgather line.
  const std::size_t footer = text.find("# Avg bus bandwidth");
  const std::size_t allgather_section = text.find("# allgather");
  ASSERT_NE(allgather_section, std::string::npos) << text;
  EXPECT_LT(footer, allgather_section);
}

// The points of `rows` as the NCCL backend runs them with a pinned algorithm and protocol.
std::vector<std::vector<PointResult>> tuned(std::vector<std::vector<PointResult>> rows,
                                            const std::string& algorithm,
                                            const std::string& protocol) {
  for (auto& row : rows)
    for (auto& p : row) {
      p.key.backend = "nccl";
      p.key.algorithm = algorithm;
      p.key.protocol = protocol;
    }
  return rows;
}

std::size_t line_index(const std::vector<std::string>& lines, const std::string& wanted) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i] == wanted) return i;
  ADD_FAILURE() << "no line " << wanted;
  return lines.size();
}

TEST(TableReporter, LibraryChoiceAloneAddsNoTuningLine) {
  const std::string text = render(tuned(allreduce_rows(), "", ""));
  for (const auto& line : split_lines(text))
    EXPECT_EQ(line.find("algorithm"), std::string::npos) << line;
}

TEST(TableReporter, EachTuningGetsACommentLineBeforeItsRows) {
  // The sweep once with NCCL's own choice, then per pinned combination.
  auto rows = tuned(allreduce_rows(), "", "");
  for (auto& row : tuned(allreduce_rows(), "Ring", "LL128")) rows.push_back(row);
  for (auto& row : tuned(allreduce_rows(), "Tree", "")) rows.push_back(row);
  const std::string text = render(rows);
  const auto lines = split_lines(text);

  const auto tuning_lines = lines_starting(text, "# nccl algorithm");
  EXPECT_EQ(tuning_lines, (std::vector<std::string>{"# nccl algorithm Ring, protocol LL128",
                                                    "# nccl algorithm Tree, protocol auto"}))
      << text;
  // Each comes after the previous tuning's last row and before its own first row.
  const std::size_t ring = line_index(lines, "# nccl algorithm Ring, protocol LL128");
  const std::size_t tree = line_index(lines, "# nccl algorithm Tree, protocol auto");
  std::vector<std::size_t> data;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() && !lines[i].starts_with("#")) data.push_back(i);
  ASSERT_EQ(data.size(), 9u) << text;
  EXPECT_LT(data[2], ring);
  EXPECT_LT(ring, data[3]);
  EXPECT_LT(data[5], tree);
  EXPECT_LT(tree, data[6]);
  // No tuning line between the rows of one tuning.
  for (std::size_t i = data[3]; i < data[5]; ++i) EXPECT_FALSE(lines[i].starts_with("# nccl")) << i;

  // nccl-tests' column shape is unchanged.
  for (const auto& row : data_lines(text)) EXPECT_EQ(row.size(), 16u);
  // Each tuning has its own footer: its bus bandwidth is not averaged with another's.
  EXPECT_EQ(lines_starting(text, "# Avg bus bandwidth").size(), 3u) << text;
  EXPECT_EQ(lines_starting(text, "# Out of bounds values").size(), 3u) << text;
}

TEST(TableReporter, DatatypeColumnUsesNcclTestsNames) {
  const auto AR = CollectiveKind::allreduce;
  const std::string text = render(
      {{point(AR, 1024, 128, Mode::bandwidth, false, 10e-6, 12e-6, 0.1, 0.15, 0, DataType::float64,
              ReduceOp::max)},
       {point(AR, 1024, 1024, Mode::bandwidth, false, 10e-6, 12e-6, 0.1, 0.15, 0, DataType::int8,
              ReduceOp::prod)}});
  const auto rows = data_lines(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][2], "double");
  EXPECT_EQ(rows[0][3], "max");
  EXPECT_EQ(rows[1][2], "int8");
  EXPECT_EQ(rows[1][3], "prod");
}

TEST(TableReporter, ReducedPrecisionTypesAndAvgKeepTheColumns) {
  const auto AR = CollectiveKind::allreduce;
  std::vector<std::vector<PointResult>> rows;
  std::size_t size = 1024;
  for (DataType type : {DataType::float16, DataType::bfloat16, DataType::float8_e4m3,
                        DataType::float8_e5m2}) {
    rows.push_back({point(AR, size, size / size_of(type), Mode::bandwidth, false, 10e-6, 12e-6,
                          0.1, 0.15, 0, type, ReduceOp::avg)});
    size *= 2;
  }
  const std::string text = render(rows);
  const auto lines = data_lines(text);
  ASSERT_EQ(lines.size(), 4u) << text;
  const std::vector<std::string> names{"half", "bfloat16", "f8e4m3", "f8e5m2"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ASSERT_EQ(lines[i].size(), 16u) << text;
    EXPECT_EQ(lines[i][2], names[i]);
    EXPECT_EQ(lines[i][3], "avg");
  }
}

TEST(CsvReporter, HeaderThenOneLinePerPoint) {
  std::ostringstream out;
  CsvReporter reporter(out);
  const auto rows = allreduce_rows();
  for (const auto& row : rows) reporter.row(row);
  reporter.end();
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 1u + 6u) << out.str();
  const auto header = split_on(lines[0], ',');
  const std::vector<std::string> expected_header{
      "backend",        "collective",     "datatype",       "redop",           "placement",
      "algorithm",      "protocol",       "chosen_algorithm", "chosen_protocol", "chosen_channels",
      "nranks",         "mode",           "sync",           "in_place",        "size_bytes",
      "count",          "root",
      "samples",        "ops_per_sample", "stop_reason",    "converged",       "ci_rel_halfwidth",
      "ci_mark",        "round_spread_rel", "rounds_agree",
      "invalid_samples", "window_margin_us", "clock_error_us", "time_median_us",
      "time_min_us",    "time_p5_us",     "time_p95_us",    "time_p99_us",     "time_max_us",
      "time_mean_us",   "time_stddev_us", "time_median_ci_low_us", "time_median_ci_high_us",
      "osu_mean_us",    "algbw_GBps",
      "busbw_GBps",
      "wrong",          "wrong_before_timing", "wrong_after_timing", "implausible",
      "overlap_collective_slowdown",      "overlap_load_slowdown",
      "overlap_hidden", "overlap_hidden_ci_low",            "overlap_hidden_ci_high"};
  // Then every /points column not named yet, in the file's order (rounds, sample_step_us, and
  // any column added since).
  std::vector<std::string> expected = expected_header;
  for_each_point_cell(rows[0][0], [&](std::string_view column, const PointCell&) {
    if (std::find(expected_header.begin(), expected_header.end(), column) == expected_header.end())
      expected.emplace_back(column);
  });
  ASSERT_GT(expected.size(), expected_header.size());
  EXPECT_EQ(header, expected);
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return std::size_t{0};
  };
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = split_on(lines[i], ',');
    ASSERT_EQ(cells.size(), header.size()) << lines[i];
    const PointResult& p = rows[(i - 1) / 2][(i - 1) % 2];
    EXPECT_EQ(cells[column("backend")], "mpi");
    EXPECT_EQ(cells[column("collective")], "allreduce");
    EXPECT_EQ(cells[column("datatype")], "float");
    EXPECT_EQ(cells[column("redop")], "sum");
    EXPECT_EQ(cells[column("nranks")], "4");
    EXPECT_EQ(cells[column("algorithm")], "");
    EXPECT_EQ(cells[column("protocol")], "");
    EXPECT_EQ(cells[column("mode")], std::string(name(p.key.mode)));
    EXPECT_EQ(cells[column("in_place")], "false");
    EXPECT_EQ(cells[column("size_bytes")], std::to_string(p.key.size_bytes));
    EXPECT_EQ(cells[column("count")], std::to_string(p.key.count));
    EXPECT_EQ(cells[column("samples")], "25");
    EXPECT_EQ(cells[column("ops_per_sample")], std::to_string(p.ops_per_sample));
    EXPECT_EQ(cells[column("stop_reason")], std::string(name(p.stop_reason)));
    EXPECT_EQ(cells[column("converged")], "true");
    EXPECT_NEAR(std::stod(cells[column("ci_rel_halfwidth")]), 0.01, 1e-12);
    EXPECT_EQ(cells[column("ci_mark")], "1.0%");
    EXPECT_EQ(cells[column("round_spread_rel")], "null");
    EXPECT_EQ(cells[column("sync")], std::string(name(p.key.sync)));
    EXPECT_EQ(cells[column("window_margin_us")], "null");  // no margin recorded
    EXPECT_NEAR(std::stod(cells[column("time_median_us")]), p.summary.median * 1e6,
                1e-9 * p.summary.median * 1e6);
    EXPECT_NEAR(std::stod(cells[column("time_p99_us")]), p.summary.p99 * 1e6,
                1e-9 * p.summary.p99 * 1e6);
    EXPECT_DOUBLE_EQ(std::stod(cells[column("busbw_GBps")]), p.busbw_gbps);
    EXPECT_EQ(cells[column("wrong")], "0");
  }
}

TEST(JsonLinesReporter, EachLineIsAJsonRecordInMicroseconds) {
  std::ostringstream out;
  JsonLinesReporter reporter(out);
  auto rows = allreduce_rows(kNotChecked);
  rows[0][1].key.in_place = true;
  for (const auto& row : rows) reporter.row(row);
  reporter.end();
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 6u) << out.str();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    nlohmann::json record;
    ASSERT_NO_THROW(record = nlohmann::json::parse(lines[i]));
    ASSERT_TRUE(record.is_object());
    const PointResult& p = rows[i / 2][i % 2];
    EXPECT_EQ(record.at("collective"), "allreduce");
    EXPECT_EQ(record.at("mode"), std::string(name(p.key.mode)));
    EXPECT_EQ(record.at("in_place").get<bool>(), p.key.in_place);
    EXPECT_EQ(record.at("size_bytes").get<std::size_t>(), p.key.size_bytes);
    EXPECT_EQ(record.at("count").get<std::size_t>(), p.key.count);
    EXPECT_NEAR(record.at("time_median_us").get<double>(), p.summary.median * 1e6,
                1e-9 * p.summary.median * 1e6);
    EXPECT_NEAR(record.at("time_p99_us").get<double>(), p.summary.p99 * 1e6,
                1e-9 * p.summary.p99 * 1e6);
    EXPECT_NEAR(record.at("time_min_us").get<double>(), p.summary.min * 1e6,
                1e-9 * p.summary.min * 1e6);
    EXPECT_DOUBLE_EQ(record.at("busbw_GBps").get<double>(), p.busbw_gbps);
    EXPECT_DOUBLE_EQ(record.at("algbw_GBps").get<double>(), p.algbw_gbps);
    EXPECT_EQ(record.at("wrong").get<std::int64_t>(), kNotChecked);
  }
  // The first point's median, 12.5 us, is stored as microseconds, not seconds.
  EXPECT_NEAR(nlohmann::json::parse(lines[0]).at("time_median_us").get<double>(), 12.5, 1e-9);
}

TEST(JsonLinesReporter, NamesThePinnedTuning) {
  std::ostringstream out;
  JsonLinesReporter reporter(out);
  const auto rows = tuned(allreduce_rows(), "Ring", "");
  reporter.row(rows[0]);
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 2u) << out.str();
  const auto record = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(record.at("algorithm"), "Ring");
  EXPECT_EQ(record.at("protocol"), "");  // the library chose
}

TEST(JsonReporter, OpensWithTheRunsDescriptionInItsOrderThenThePoints) {
  std::ostringstream out;
  JsonReporter reporter(out);
  RunDescription run = run_description();
  run.nodes = 2;
  run.hosts = {"a", "b"};
  reporter.begin(run);
  reporter.row(allreduce_rows()[0]);
  reporter.end();
  const auto document = nlohmann::ordered_json::parse(out.str());
  std::vector<std::string> keys;
  for (const auto& item : document.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"collbench_version", "backend", "backend_version", "nranks",
                                      "nodes", "hosts", "start_utc", "command_line",
                                      "plausibility", "points"}));
  EXPECT_EQ(document["hosts"], nlohmann::ordered_json({"a", "b"}));
  // Not recorded here: null, never a made-up number.
  EXPECT_EQ(document["plausibility"],
            nlohmann::ordered_json::parse(R"({"copy": [], "empty_call_us": null, "margin": 4.0})"));
  EXPECT_EQ(document["points"].size(), allreduce_rows()[0].size());
}

TEST(LinkBoundsJson, CarriesEachBoundsColumnsAsTheTableNamesThem) {
  const std::vector<PointResult> points = allreduce_rows()[0];
  LinkBoundRecord record{.bounds = {{.point_id = 0,
                                     .kind = LinkKind::intra,
                                     .links = 3,
                                     .alpha_us = 2,
                                     .bandwidth_GBps = 10,
                                     .algorithm = "ring",
                                     .predicted_us = 4,
                                     .measured_us = 6}},
                         .links_file = "links.h5",
                         .links_start_utc = "then"};
  const auto json = link_bounds_json(record, points);
  const auto& bound = json["points"].at(0);
  EXPECT_EQ(bound["point_id"], 0);
  EXPECT_EQ(bound["kind"], "intra");
  EXPECT_EQ(bound["links"], 3);
  EXPECT_EQ(bound["algorithm"], "ring");
  EXPECT_DOUBLE_EQ(bound["ratio"].get<double>(), 1.5);
  EXPECT_EQ(bound["collective"], "allreduce");
  const auto& curve = json["curves"].at(0);
  EXPECT_EQ(curve["points"], 1);
  EXPECT_DOUBLE_EQ(curve["median_ratio"].get<double>(), 1.5);
}

TEST(MarkdownReporter, ShowsAlgorithmAndProtocolColumns) {
  std::ostringstream out;
  MarkdownReporter reporter(out);
  reporter.row(tuned(allreduce_rows(), "Ring", "LL128")[0]);
  reporter.row(tuned(allreduce_rows(), "", "")[0]);
  reporter.end();
  const auto lines = split_lines(out.str());
  ASSERT_EQ(lines.size(), 6u) << out.str();
  const auto header = split_on(lines[0], '|');
  const auto tuned_row = split_on(lines[2], '|');
  const auto auto_row = split_on(lines[4], '|');
  ASSERT_EQ(tuned_row.size(), header.size());
  ASSERT_EQ(auto_row.size(), header.size());
  ASSERT_EQ(split_on(lines[1], '|').size(), header.size());
  const auto cell = [&](const std::vector<std::string>& row, const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == " " + name + " ") return row[i];
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  EXPECT_EQ(cell(tuned_row, "algorithm"), " Ring ");
  EXPECT_EQ(cell(tuned_row, "protocol"), " LL128 ");
  EXPECT_EQ(cell(auto_row, "algorithm"), " auto ");
  EXPECT_EQ(cell(auto_row, "protocol"), " auto ");
}

// A headline that says what its one segment says.
Headline headline_of_segment(const SegmentReport& segment) {
  Headline headline;
  headline.alpha_s = segment.alpha_s;
  headline.alpha_ci = segment.alpha_ci;
  headline.beta_s_per_byte = segment.beta_s_per_byte;
  headline.beta_ci = segment.beta_ci;
  headline.half_size_bytes = segment.half_size_bytes;
  headline.half_size_ci = segment.half_size_ci;
  headline.misfit = segment.rms_rel_error;
  return headline;
}

ModelReport tuned_models() {
  const SegmentReport segment{.min_size_bytes = 8,
                              .max_size_bytes = 1 << 20,
                              .sizes = 18,
                              .alpha_s = 5e-6,
                              .beta_s_per_byte = 1e-10,
                              .alpha_ci = {4e-6, 6e-6},
                              .beta_ci = {0.9e-10, 1.1e-10},
                              .half_size_bytes = 5e4,
                              .half_size_ci = {4e4, 6e4},
                              .rms_rel_error = 0.01,
                              .max_rel_error = 0.03,
                              .flags = {}};
  PointKey library_choice = curve_key(tuned(allreduce_rows(), "", "")[0][1].key);
  PointKey ring = library_choice;
  ring.algorithm = "Ring";
  ring.protocol = "LL128";
  PointKey tree = library_choice;
  tree.algorithm = "Tree";
  ModelReport report;
  for (const PointKey& key : {library_choice, ring, tree}) {
    CurveFit curve;
    curve.key = key;
    curve.sizes = 18;
    curve.min_size_bytes = 8;
    curve.max_size_bytes = 1 << 20;
    curve.segments = {segment};
    curve.headline = headline_of_segment(segment);
    report.curves.push_back(curve);
  }
  PointKey across = ring;
  across.nranks = 0;
  report.crossovers.push_back({across,
                               {.family = describe(CollectiveKind::allreduce).families[0],
                                .alpha_s = 5e-6,
                                .beta_s_per_byte = 1e-10,
                                .rms_rel_error = 0.01,
                                .bic = -100},
                               25.0 * (1 << 20), 5.2,
                              {3.1, std::numeric_limits<double>::infinity()}, 4});
  return report;
}

CurveFit one_curve(const Headline& headline) {
  CurveFit curve = tuned_models().curves[0];
  curve.headline = headline;
  return curve;
}

TEST(ModelReport, TheHeadlineSaysWhereLatencyDominates) {
  Headline inside = *tuned_models().curves[0].headline;  // n½ 48.83 KiB, sizes 8 B .. 1 MiB
  EXPECT_EQ(headline_text(one_curve(inside)),
            "n½ 48.83 KiB [39.06 KiB, 58.59 KiB]: latency dominates below it; alpha 5 [4, 6] us; "
            "bandwidth 10 [9.09, 11.1] GB/s; misfit 1.0%");
  Headline beyond = inside;
  beyond.half_size_bytes = 4e6;
  beyond.half_size_ci = {3e6, 5e6};
  EXPECT_NE(headline_text(one_curve(beyond))
                .find("beyond the largest size (1 MiB): latency dominates every size measured"),
            std::string::npos);
  Headline below = inside;
  below.half_size_bytes = 2;
  below.half_size_ci = {1, 4};
  EXPECT_NE(headline_text(one_curve(below))
                .find("below the smallest size (8 B): bandwidth dominates every size measured"),
            std::string::npos);
  Headline falls = inside;
  falls.bandwidth_falls_at_bytes = 1 << 19;
  falls.peak_beta_s_per_byte = 0.5e-10;
  falls.misfit = 0.08;
  falls.flags = {"misfit 8.0% above 5%"};
  EXPECT_NE(headline_text(one_curve(falls)).find("bandwidth falls from 20 GB/s above 512 KiB"),
            std::string::npos);
  EXPECT_TRUE(headline_text(one_curve(falls)).ends_with("(untrusted: misfit 8.0% above 5%)"));
}

TEST(ModelReport, SegmentsOnlyWhenAsked) {
  std::ostringstream plain, detailed;
  print_model_table(plain, tuned_models());
  print_model_table(detailed, tuned_models(), true);
  EXPECT_EQ(plain.str().find("rms err"), std::string::npos) << plain.str();
  EXPECT_NE(detailed.str().find("rms err"), std::string::npos) << detailed.str();
  EXPECT_NE(plain.str().find("n½ 48.83 KiB"), std::string::npos) << plain.str();
}

TEST(ModelReport, JsonCarriesTheHeadline) {
  const auto json = model_json(tuned_models());
  const auto& headline = json["curves"][0].at("headline");
  EXPECT_DOUBLE_EQ(headline.at("half_size_bytes").get<double>(), 5e4);
  EXPECT_EQ(headline.at("half_size_position"), "inside");
  EXPECT_DOUBLE_EQ(headline.at("bandwidth_GBps").get<double>(), 10);
  EXPECT_EQ(headline.at("trusted"), true);
  EXPECT_TRUE(headline.at("bandwidth_falls_at_bytes").is_null());
}

TEST(ModelReport, FitLinesNameTheTuningOfEachCurve) {
  const auto lines = model_footer_lines(tuned_models());
  ASSERT_EQ(lines.size(), 4u);
  // The curve's words are compare's and check's: curve_text (harness/plan/point_identity.h).
  EXPECT_TRUE(lines[0].starts_with("# fit allreduce float sum world 4 ranks bandwidth:"))
      << lines[0];
  EXPECT_TRUE(lines[1].starts_with("# fit allreduce float sum world 4 ranks bandwidth Ring/LL128:"))
      << lines[1];
  EXPECT_NE(lines[2].find(" bandwidth Tree/auto:"), std::string::npos) << lines[2];
  EXPECT_TRUE(lines[3].starts_with(
      "# crossover allreduce float sum world across ranks bandwidth Ring/LL128:"))
      << lines[3];

  std::ostringstream table;
  print_model_table(table, tuned_models());
  EXPECT_EQ(lines_starting(table.str(), "# allreduce float sum world 4 ranks bandwidth Ring/LL128")
                .size(),
            1u)
      << table.str();
}

TEST(ModelReport, JsonNamesTheTuningOfEachCurve) {
  const auto json = model_json(tuned_models());
  ASSERT_EQ(json.at("curves").size(), 3u);
  EXPECT_EQ(json["curves"][0].at("algorithm"), "");
  EXPECT_EQ(json["curves"][0].at("protocol"), "");
  EXPECT_EQ(json["curves"][1].at("algorithm"), "Ring");
  EXPECT_EQ(json["curves"][1].at("protocol"), "LL128");
  EXPECT_EQ(json["curves"][2].at("algorithm"), "Tree");
  EXPECT_EQ(json["curves"][2].at("protocol"), "");
  EXPECT_EQ(json.at("crossovers")[0].at("algorithm"), "Ring");
}

// A beta interval that reaches 0 leaves the bandwidth unbounded above, never a negative end.
TEST(ModelReport, BandwidthIntervalsNeverTurnUpsideDown) {
  ModelReport models = tuned_models();
  models.curves[0].headline->beta_ci.low = -1e-10;
  const auto lines = model_footer_lines(models);
  EXPECT_NE(lines[0].find("bandwidth 10 [9.09, unbounded] GB/s"), std::string::npos) << lines[0];
}

// An n½ whose betas reach 0 is unbounded above, never negative below, and the line says why.
TEST(ModelReport, UnboundedHalfSizesAndBandwidthsSayWhy) {
  ModelReport models = tuned_models();
  Headline& h = *models.curves[0].headline;
  h.beta_ci.low = -1e-10;
  h.half_size_ci = {2e4, std::numeric_limits<double>::infinity()};
  const auto lines = model_footer_lines(models);
  EXPECT_NE(lines[0].find("n½ 48.83 KiB [19.53 KiB, unbounded]: latency dominates below it"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("; unbounded: in at least 2.5% of the bootstrap replicates the "
                          "large-message time did not grow with size (beta <= 0)"),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1].find("unbounded"), std::string::npos) << lines[1];  // bounded: no words
  const auto json = model_json(models);
  EXPECT_EQ(json["curves"][0].at("headline").at("half_size_ci_bytes"),
            nlohmann::ordered_json::parse("[20000.0, null]"));
}

// One rank moves nothing: its fitted beta is 0, and the bandwidth unbounded in text and JSON
// (null, never a JSON reader's parse error or a script's None formatted as a number).
TEST(ModelReport, ABetaOfZeroIsAnUnboundedBandwidth) {
  ModelReport models = tuned_models();
  CurveFit& curve = models.curves[0];
  curve.segments[0].beta_s_per_byte = 0;
  curve.headline->beta_s_per_byte = 0;
  models.crossovers[0].family.beta_s_per_byte = 0;
  const auto json = model_json(models);
  EXPECT_TRUE(json["curves"][0].at("segments")[0].at("bandwidth_GBps").is_null());
  EXPECT_TRUE(json["curves"][0].at("headline").at("bandwidth_GBps").is_null());
  EXPECT_DOUBLE_EQ(json["curves"][1].at("segments")[0].at("bandwidth_GBps").get<double>(), 10);
  const auto lines = model_footer_lines(models);
  EXPECT_NE(lines[0].find("bandwidth unbounded ["), std::string::npos) << lines[0];
  EXPECT_NE(lines[3].find("1/beta unbounded GB/s"), std::string::npos) << lines[3];
}

// p* 5.2 with an interval whose high end is unbounded (replicates that lost the latency term).
TEST(ModelReport, CrossoverCarriesItsRankInterval) {
  const auto lines = model_footer_lines(tuned_models());
  EXPECT_NE(lines[3].find("p*(25 MiB) = 5 ranks [3, unbounded] (extrapolated: measured up to 4)"
                          "; unbounded: in at least 2.5% of the bootstrap replicates the ring "
                          "family had no latency term"),
            std::string::npos)
      << lines[3];
  const auto json = model_json(tuned_models());
  EXPECT_EQ(json.at("crossovers")[0].at("crossover_ranks_ci"),
            nlohmann::ordered_json::parse("[3.1, null]"));
}

}  // namespace
}  // namespace collbench
