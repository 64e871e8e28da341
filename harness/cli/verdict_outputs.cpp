#include "verdict_outputs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/errors.h"

namespace collbench {

void add_verdict_output_options(CLI::App& command, std::string& format, std::string& junit,
                                std::string& prom, const std::string& junit_help,
                                const std::string& prom_help) {
  command.add_option("--format", format, "table or json")->capture_default_str();
  command.add_option("--junit", junit, junit_help);
  command.add_option("--prom", prom, prom_help);
}

void check_output_format(const std::string& format) {
  if (format != "table" && format != "json")
    throw UsageError(fmt::format("--format: unknown format '{}' (table or json)", format));
}

namespace {

void check_output_path(const std::string& option, const std::string& file) {
  if (file.empty()) return;
  const std::filesystem::path path(file);
  const std::filesystem::path parent =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(parent, error))
    throw UsageError(fmt::format("{} {}: no such directory {}", option, file, parent.string()));
  if (std::filesystem::is_directory(path, error))
    throw UsageError(fmt::format("{} {}: is a directory", option, file));
}

}  // namespace

double parse_threshold(std::string text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value))
    throw UsageError(fmt::format("--threshold: '{}' is not a number (write 5% or 0.05)",
                                 text + (percent ? "%" : "")));
  if (!percent && value > 1)
    throw UsageError(fmt::format("--threshold: {} is ambiguous: write {}% for a percentage, or a "
                                 "fraction such as 0.05",
                                 text, text));
  const double fraction = percent ? value / 100 : value;
  if (!(fraction > 0) || fraction > 10)
    throw UsageError(fmt::format("--threshold: {} must be above 0% and at most 1000%",
                                 text + (percent ? "%" : "")));
  return fraction;
}

void check_verdict_files(const std::string& junit, const std::string& prom) {
  check_output_path("--junit", junit);
  check_output_path("--prom", prom);
}

void write_verdict_files(const std::string& junit, const std::string& prom, std::string_view suite,
                         std::string_view prefix, const std::vector<VerdictRecord>& records) {
  if (junit.empty() && prom.empty()) return;
  try {
    if (!junit.empty()) write_junit(junit, suite, records);
    if (!prom.empty()) write_prometheus(prom, prefix, records);
  } catch (const std::runtime_error& error) {
    std::error_code ignored;
    if (!junit.empty()) std::filesystem::remove(junit, ignored);
    throw UsageError(error.what());
  }
}

std::vector<std::string> result_files(const std::vector<std::string>& given,
                                      const std::string& excluded) {
  std::vector<std::string> files;
  std::error_code error;
  const auto is_excluded = [&](const std::filesystem::path& path) {
    return std::filesystem::equivalent(path, excluded, error);
  };
  for (const auto& name : given) {
    if (!std::filesystem::is_directory(name, error)) {
      files.push_back(name);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(name, error))
      if (entry.path().extension() == ".h5" && !is_excluded(entry.path()))
        found.push_back(entry.path().string());
    if (found.empty()) throw UsageError(fmt::format("{}: a folder without .h5 result files", name));
    std::ranges::sort(found);
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace collbench
