#pragma once
// The outputs `collbench check` and `collbench compare` share: the verdicts on stdout as a
// table or JSON (--format), and optionally as JUnit XML (--junit) and a Prometheus textfile
// (--prom). One place, so both commands spell and validate them alike.
#include <string>

namespace CLI {
class App;
}

namespace collbench {

// Adds --format, --junit and --prom; the help of the last two says what each command writes.
void add_verdict_output_options(CLI::App& command, std::string& format, std::string& junit,
                                std::string& prom, const std::string& junit_help,
                                const std::string& prom_help);

// Throws UsageError unless `format` is "table" or "json".
void check_output_format(const std::string& format);

}  // namespace collbench
