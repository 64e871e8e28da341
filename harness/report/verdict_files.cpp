#include "verdict_files.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

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
  std::string text = fmt::format("name=\"{}\",verdict=\"{}\"", label_escaped(record.name),
                                 label_escaped(record.verdict));
  for (const auto& [key, value] : record.labels)
    text += fmt::format(",{}=\"{}\"", key, label_escaped(value));
  return text;
}

void write_whole(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

}  // namespace

void write_junit(const std::filesystem::path& file, std::string_view suite,
                 std::span<const VerdictRecord> records) {
  std::size_t failures = 0;
  for (const auto& record : records) failures += record.severity >= 2;
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"collbench\" tests=\"{}\" failures=\"{}\">\n",
                     records.size(), failures);
  xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                     "skipped=\"0\">\n",
                     xml_escaped(suite), records.size(), failures);
  for (const auto& record : records) {
    xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escaped(suite),
                       xml_escaped(record.name));
    const std::string text = xml_escaped(fmt::format("{}: {}", record.verdict, record.message));
    if (record.severity >= 2)
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
                      std::span<const VerdictRecord> records) {
  std::string text = fmt::format(
      "# HELP {0}_severity collbench verdict: 0 pass or same, 1 warn or unsure, 2 fail or slower\n"
      "# TYPE {0}_severity gauge\n",
      prefix);
  for (const auto& record : records)
    text += fmt::format("{}_severity{{{}}} {}\n", prefix, labels_of(record), record.severity);
  text += fmt::format("# HELP {0}_value the measured quantity each verdict judged\n"
                      "# TYPE {0}_value gauge\n",
                      prefix);
  for (const auto& record : records)
    if (std::isfinite(record.value))
      text += fmt::format("{}_value{{{}}} {}\n", prefix, labels_of(record), record.value);
  const std::filesystem::path temporary =
      file.parent_path() / fmt::format(".{}.{}.tmp", file.filename().string(), ::getpid());
  write_whole(temporary, text);
  std::error_code error;
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw std::runtime_error(fmt::format("cannot write {}: {}", file.string(), error.message()));
  }
}

}  // namespace collbench
