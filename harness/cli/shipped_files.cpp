#include "shipped_files.h"

#include <algorithm>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/errors.h"

namespace collbench {

namespace fs = std::filesystem;

fs::path shipped_folder(std::string_view installed, std::string_view in_source) {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path beside = self.parent_path().parent_path() / "share/collbench" / installed;
    if (fs::is_directory(beside, error)) return beside;
  }
  return fs::path(COLLBENCH_SOURCE_DIR) / in_source;
}

namespace {

// The stems of the folder's .toml files, sorted.
std::vector<std::string> spec_names_in(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

fs::path resolve_spec(const std::string& spec) {
  if (fs::exists(spec)) return spec;
  const fs::path folder = shipped_folder("acceptance", "ci/acceptance");
  const bool a_name = spec.find('/') == std::string::npos && fs::path(spec).extension().empty();
  if (a_name && fs::exists(folder / (spec + ".toml"))) return folder / (spec + ".toml");
  throw UsageError(fmt::format("--spec {}: {}; the shipped specs are {} (in {})", spec,
                               a_name ? "no spec of that name" : "no such file",
                               fmt::join(spec_names_in(folder), ", "), folder.string()));
}

}  // namespace collbench
