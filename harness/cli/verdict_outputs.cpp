#include "verdict_outputs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/errors.h"

namespace collbench {

void add_verdict_output_options(CLI::App& command, VerdictOutputs& outputs,
                                const std::string& junit_help, const std::string& prom_help) {
  command.add_option("--format", outputs.format, "table or json")->capture_default_str();
  command.add_option("--junit", outputs.junit, junit_help);
  command.add_option("--prom", outputs.prom, prom_help);
  command.add_option("--prom-dir", outputs.prom_dir,
                     "node_exporter's textfile folder: one stable file per job in it, replaced "
                     "atomically (default: $COLLBENCH_PROM_DIR)");
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

std::string prom_dir_of(const VerdictOutputs& outputs) {
  if (!outputs.prom_dir.empty()) return outputs.prom_dir;
  const char* variable = std::getenv("COLLBENCH_PROM_DIR");
  return variable ? variable : "";
}

// --prom when given, else the job's stable file in the collector's folder, else none.
std::string prom_file_of(const VerdictOutputs& outputs, const VerdictJob& job) {
  if (!outputs.prom.empty()) return outputs.prom;
  const std::string folder = prom_dir_of(outputs);
  if (folder.empty()) return "";
  std::string stem = job.instance.empty() ? job.prefix : job.prefix + "_" + job.instance;
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
  return (std::filesystem::path(folder) / (stem + ".prom")).string();
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

void check_verdict_outputs(const VerdictOutputs& outputs) {
  check_output_format(outputs.format);
  check_output_path("--junit", outputs.junit);
  check_output_path("--prom", outputs.prom);
  const std::string folder = prom_dir_of(outputs);
  std::error_code error;
  if (!folder.empty() && !std::filesystem::is_directory(folder, error))
    throw UsageError(fmt::format("{} {}: no such directory",
                                 outputs.prom_dir.empty() ? "COLLBENCH_PROM_DIR" : "--prom-dir",
                                 folder));
}

void write_verdict_files(const VerdictOutputs& outputs, const VerdictJob& job,
                         const VerdictRun& run, const std::vector<VerdictRecord>& records) {
  const std::string prom = prom_file_of(outputs, job);
  try {
    if (!outputs.junit.empty()) write_junit(outputs.junit, job.suite, records, run);
    if (!prom.empty()) write_prometheus(prom, job.prefix, records, run);
  } catch (const std::runtime_error& error) {
    std::error_code ignored;
    if (!outputs.junit.empty()) std::filesystem::remove(outputs.junit, ignored);
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
