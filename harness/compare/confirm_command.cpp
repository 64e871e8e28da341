#include "harness/compare/confirm_command.h"

#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace collbench {
namespace {

// Variables a launcher sets for each launch (ranks, job ids, paths): they differ between any
// two launches and say nothing about what was measured.
bool set_per_launch(const std::string& name) {
  return name.starts_with("OMPI_") || name.starts_with("SLURM_") || name.starts_with("PMIX_");
}

std::string single_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The run's command line without its --out FILE, which ci/interleave appends.
std::string without_out(const std::string& command_line) {
  std::istringstream words(command_line);
  std::vector<std::string> kept;
  for (std::string word; words >> word;) {
    if (word == "--out") {
      words >> word;
      continue;
    }
    if (!word.starts_with("--out=")) kept.push_back(word);
  }
  return fmt::format("{}", fmt::join(kept, " "));
}

// One launch as ci/interleave runs it: the variables that tell it from the other, the launcher,
// the run.
std::string launch_command(const Provenance& run, const Provenance& other) {
  std::vector<std::string> words;  // env's options before its assignments
  for (const auto& [name, value] : other.environment)
    if (!set_per_launch(name) && !run.environment.contains(name)) words.push_back("-u " + name);
  for (const auto& [name, value] : run.environment) {
    if (set_per_launch(name)) continue;
    const auto theirs = other.environment.find(name);
    if (theirs == other.environment.end() || theirs->second != value)
      words.push_back(name + "=" + value);
  }
  const bool slurm = !run.text_of("slurm_job_id").empty();
  const auto ranks = run.integers.find("nranks");
  const std::string launcher =
      slurm ? "srun" : fmt::format("mpirun -np {}", ranks == run.integers.end() ? 0 : ranks->second);
  std::string command = words.empty() ? "" : "env " + fmt::format("{} ", fmt::join(words, " "));
  return command + launcher + " " + without_out(run.text_of("command_line"));
}

}  // namespace

std::string confirm_command(const Provenance& level, const Provenance& tonight) {
  std::string command = fmt::format("ci/interleave --out interleave/ --a {} --b {}",
                                    single_quoted(launch_command(level, tonight)),
                                    single_quoted(launch_command(tonight, level)));
  std::vector<std::string> builds;
  for (const char* key : {"collbench_version", "git_revision", "backend_version"})
    if (level.text_of(key) != tonight.text_of(key))
      builds.push_back(fmt::format("{} {} and {}", key, level.text_of(key), tonight.text_of(key)));
  if (!builds.empty())
    command += fmt::format(" (the builds differ: {}; each command must run its own)",
                           fmt::join(builds, ", "));
  return command;
}

}  // namespace collbench
