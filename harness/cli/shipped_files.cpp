#include "shipped_files.h"

#include <algorithm>
#include <system_error>

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

fs::path shipped_specs_folder() { return shipped_folder("acceptance", "ci/acceptance"); }

std::vector<std::string> shipped_spec_names() {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(shipped_specs_folder(), error))
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

fs::path resolve_spec(const std::string& spec) {
  if (fs::exists(spec)) return spec;
  const bool a_name = spec.find('/') == std::string::npos && fs::path(spec).extension().empty();
  if (a_name) {
    const fs::path shipped = shipped_specs_folder() / (spec + ".toml");
    if (fs::exists(shipped)) return shipped;
  }
  throw UsageError(fmt::format("--spec {}: {}; the shipped specs are {} (in {})", spec,
                               a_name ? "no spec of that name" : "no such file",
                               fmt::join(shipped_spec_names(), ", "),
                               shipped_specs_folder().string()));
}

}  // namespace collbench
