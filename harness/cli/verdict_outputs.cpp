#include "verdict_outputs.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/cli/usage_error.h"

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

}  // namespace collbench
