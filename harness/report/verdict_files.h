#pragma once
// Verdicts of `check` (one per rule) and `compare` (one per point or fit) in the files CI and
// monitoring read: JUnit XML (Jenkins, GitLab) and the Prometheus text format for
// node_exporter's textfile collector.
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collbench {

struct VerdictRecord {
  std::string name;      // what was judged, e.g. "allreduce world 8 ranks 1 GiB–8 GiB busbw floor"
  std::string verdict;   // PASS, WARN, FAIL; SAME, FASTER, SLOWER, UNSURE
  int severity = 0;      // 0 fine, 1 warning or unsure, 2 failure: a JUnit <failure>
  std::string message;   // the measured value with its interval, and what it was held against
  double value = std::numeric_limits<double>::quiet_NaN();  // the measured quantity
  std::vector<std::pair<std::string, std::string>> labels;  // collective, placement, nranks, ...
};

// One <testsuite> named `suite`, a <testcase> per record; severity 2 is a <failure>, 1 is
// reported in <system-out>. Throws std::runtime_error naming the file when it cannot be written.
void write_junit(const std::filesystem::path& file, std::string_view suite,
                 std::span<const VerdictRecord> records);

// `<prefix>_severity` (0, 1, 2) and `<prefix>_value` per record, labelled with its name,
// verdict and labels. Written to a temporary file beside `file`, then renamed over it, so a
// scrape never reads half a file.
void write_prometheus(const std::filesystem::path& file, std::string_view prefix,
                      std::span<const VerdictRecord> records);

}  // namespace collbench
