#include "verdict_files.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/report/whole_file.h"

namespace collbench {
namespace {

std::string xml_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// Label values escape backslash, double quote and newline (the exposition format's rules).
std::string label_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string labels_of(const VerdictRecord& record) {
  std::string text = fmt::format("name=\"{}\"", label_escaped(record.name));
  for (const auto& [key, value] : record.labels)
    text += fmt::format(",{}=\"{}\"", key, label_escaped(value));
  return text;
}

// JUnit's schema takes an ISO 8601 time without a zone; ours is UTC.
std::string junit_timestamp(const VerdictRun& run) {
  const std::string& utc = run.started_utc;
  return xml_escaped(utc.ends_with('Z') ? utc.substr(0, utc.size() - 1) : utc);
}

}  // namespace

std::string_view name(Quantity quantity) {
  switch (quantity) {
    case Quantity::seconds: return "seconds";
    case Quantity::bytes_per_second: return "bytes_per_second";
    case Quantity::ratio: break;
  }
  return "ratio";
}

VerdictRun verdict_run(const std::string& started_utc, const std::string& ended_utc) {
  const auto unix_seconds = [](const std::string& utc) {
    std::tm tm{};
    std::istringstream in(utc);
    in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
    return in.fail() ? std::numeric_limits<double>::quiet_NaN()
                     : static_cast<double>(timegm(&tm));
  };
  VerdictRun run;
  run.started_utc = started_utc;
  run.started_unix_s = unix_seconds(started_utc);
  const double ended = unix_seconds(ended_utc);
  if (std::isfinite(ended) && ended >= run.started_unix_s) run.duration_s = ended - run.started_unix_s;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) run.hostname = host;
  return run;
}

void write_junit(const std::filesystem::path& file, std::string_view suite,
                 std::span<const VerdictRecord> records, const VerdictRun& run) {
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const auto& record : records) {
    failures += record.severity >= 2;
    skipped += record.skipped;
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"collbench\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "skipped=\"{}\" time=\"{:.3f}\">\n",
      records.size(), failures, skipped, run.duration_s);
  xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                     "skipped=\"{}\" time=\"{:.3f}\"{}{}>\n",
                     xml_escaped(suite), records.size(), failures, skipped, run.duration_s,
                     run.started_utc.empty() ? "" : fmt::format(" timestamp=\"{}\"", junit_timestamp(run)),
                     run.hostname.empty()
                         ? ""
                         : fmt::format(" hostname=\"{}\"", xml_escaped(run.hostname)));
  for (const auto& record : records) {
    xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                       xml_escaped(suite), xml_escaped(record.name));
    const std::string text = xml_escaped(fmt::format("{}: {}", record.verdict, record.message));
    if (record.skipped)
      xml += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", text);
    else if (record.severity >= 2)
      xml += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    "
                         "</testcase>\n",
                         text, xml_escaped(record.verdict), text);
    else
      xml += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n", text);
  }
  xml += "  </testsuite>\n</testsuites>\n";
  write_whole(file, xml);
}

void write_prometheus(const std::filesystem::path& file, std::string_view prefix,
                      std::span<const VerdictRecord> records, const VerdictRun& run) {
  std::string text = fmt::format(
      "# HELP {0}_severity collbench verdict: 0 pass, skip, same or faster; 1 warn, noisy or "
      "unsure; 2 fail or slower\n"
      "# TYPE {0}_severity gauge\n",
      prefix);
  for (const auto& record : records)
    text += fmt::format("{}_severity{{{}}} {}\n", prefix, labels_of(record), record.severity);
  for (Quantity quantity : {Quantity::seconds, Quantity::bytes_per_second, Quantity::ratio}) {
    std::string samples;
    for (const auto& record : records)
      if (record.quantity == quantity && std::isfinite(record.value))
        samples += fmt::format("{}_{}{{{}}} {}\n", prefix, name(quantity), labels_of(record),
                               record.value);
    if (samples.empty()) continue;
    text += fmt::format("# HELP {0}_{1} the measured quantity each verdict judged, in {1}\n"
                        "# TYPE {0}_{1} gauge\n",
                        prefix, name(quantity));
    text += samples;
  }
  if (std::isfinite(run.started_unix_s))
    text += fmt::format("# HELP {0}_run_timestamp_seconds when the judged run started, Unix time\n"
                        "# TYPE {0}_run_timestamp_seconds gauge\n"
                        "{0}_run_timestamp_seconds {1:.0f}\n",
                        prefix, run.started_unix_s);
  replace_whole(file, text);
}

}  // namespace collbench
