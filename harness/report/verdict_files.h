#pragma once
// Verdicts of `check` (one per rule), `compare` (one per point or fit) and `trend` (one per
// point) in the files CI and monitoring read: JUnit XML (Jenkins, GitLab) and the Prometheus
// text format for node_exporter's textfile collector.
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collbench {

// What a record's value measures, in base units: its Prometheus metric is
// <prefix>_<quantity> (collbench_check_seconds, collbench_compare_ratio, ...).
enum class Quantity { seconds, bytes_per_second, ratio };
std::string_view name(Quantity quantity);

struct VerdictRecord {
  std::string name;      // what was judged, e.g. "allreduce <world> 8 ranks busbw floor"
  std::string verdict;   // PASS, WARN, FAIL, SKIP; SAME, FASTER, SLOWER, NOISY, UNSURE
  int severity = 0;      // 0 fine or skipped, 1 warning, noisy or unsure, 2 a JUnit <failure>
  std::string message;   // the measured value with its interval, and what it was held against
  double value = std::numeric_limits<double>::quiet_NaN();  // in base units: s, B/s, a ratio
  Quantity quantity = Quantity::ratio;
  bool skipped = false;  // nothing was judged: a JUnit <skipped/>
  std::vector<std::pair<std::string, std::string>> labels;  // collective, placement, nranks, ...
};

// The run the verdicts judge (the newest, for compare and trend) and where they were made.
struct VerdictRun {
  std::string started_utc;  // ISO 8601, as the result file has it; empty when unknown
  double started_unix_s = std::numeric_limits<double>::quiet_NaN();
  double duration_s = 0;  // the run's, from start to end; 0 when unknown
  std::string hostname;
};
// From a result file's start_utc and end_utc ("2026-12-02T02:30:38Z"); this host's name.
VerdictRun verdict_run(const std::string& started_utc, const std::string& ended_utc);

// One <testsuite> named `suite` with the counts, the run's timestamp (UTC, without the zone, as
// JUnit's schema wants it), duration and the host, a
// <testcase> per record: severity 2 is a <failure>, a skipped record a <skipped/>, the rest
// report in <system-out>. Throws std::runtime_error naming the file when it cannot be written.
void write_junit(const std::filesystem::path& file, std::string_view suite,
                 std::span<const VerdictRecord> records, const VerdictRun& run);

// `<prefix>_severity` per record (the verdict as a value: 0, 1, 2), its measured value as
// `<prefix>_seconds`, `_bytes_per_second` or `_ratio`, labelled with its name and labels (never
// the verdict, so a series lives as long as its rule or point), and
// `<prefix>_run_timestamp_seconds`. Written to a temporary file beside `file`, then renamed over
// it, so a scrape never reads half a file.
void write_prometheus(const std::filesystem::path& file, std::string_view prefix,
                      std::span<const VerdictRecord> records, const VerdictRun& run);

}  // namespace collbench
