#pragma once
// What the verdict commands (check, compare, trend) share: the verdicts on stdout as a table or
// JSON (--format), optionally as JUnit XML (--junit) and a Prometheus textfile (--prom); the
// threshold's spelling; folders of result files. One place, so they spell and validate alike.
#include <string>
#include <string_view>
#include <vector>

#include "harness/report/verdict_files.h"

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

// "5%" or "0.05" as a fraction; throws UsageError naming --threshold otherwise.
double parse_threshold(std::string text);

// Throws UsageError when --junit or --prom names a file in no folder, or a folder.
void check_verdict_files(const std::string& junit, const std::string& prom);
// Writes the records to those given (none when both are empty); a failure leaves neither.
void write_verdict_files(const std::string& junit, const std::string& prom, std::string_view suite,
                         std::string_view prefix, const std::vector<VerdictRecord>& records);

// Result files in the order given, each folder among them expanded to its .h5 files in name
// order (the default names sort by time), `excluded` left out. Throws UsageError for a folder
// without any.
std::vector<std::string> result_files(const std::vector<std::string>& given,
                                      const std::string& excluded = {});

}  // namespace collbench
