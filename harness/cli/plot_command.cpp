#include "plot_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "harness/cli/shipped_files.h"
#include "harness/errors.h"

namespace collbench {
namespace {

namespace fs = std::filesystem;

std::string from_environment(const char* variable, const std::string& fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}

// Debian's interpreter, which has the python3-h5py and python3-matplotlib packages; a python3
// earlier on PATH (pyenv, a venv) often has neither.
std::string python() {
  return from_environment("COLLBENCH_PYTHON",
                          fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
}

}  // namespace

int plot_command(const std::vector<std::string>& arguments) {
  const fs::path script =
      fs::path(from_environment("COLLBENCH_PLOTS", shipped_folder("plots", "plots").string())) /
      "collbench_plot.py";
  if (!fs::exists(script))
    throw UsageError(fmt::format("{} is missing (set COLLBENCH_PLOTS to the plots folder)",
                                 script.string()));
  // The plots ask this binary to parse acceptance specs (plots/spec.py), so units mean the same.
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) setenv("COLLBENCH", self.c_str(), 1);
  std::vector<std::string> command{python(), script.string()};
  command.insert(command.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& word : command) argv.push_back(word.data());
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  throw FaultError(fmt::format("cannot run {}: {}", command[0], std::strerror(errno)));
}

}  // namespace collbench
