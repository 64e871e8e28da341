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

// What check, compare and trend write besides stdout.
struct VerdictOutputs {
  std::string format = "table";  // stdout: table or json
  std::string junit;             // JUnit XML file, or empty
  std::string prom;              // Prometheus textfile, or empty
  // A textfile collector's folder: one stable file per job, replaced atomically each time
  // (empty: $COLLBENCH_PROM_DIR, if set).
  std::string prom_dir;
};

// What a job's verdict files are called: the JUnit suite, the Prometheus metrics' prefix, and
// what tells one stable file in --prom-dir from another of the same prefix (a spec's title):
// <prefix>[_<instance>].prom, other characters than letters, digits and '-' as '_'.
struct VerdictJob {
  std::string suite;
  std::string prefix;
  std::string instance;
};

// Adds --format, --junit, --prom and --prom-dir; the help of --junit and --prom says what each
// command writes.
void add_verdict_output_options(CLI::App& command, VerdictOutputs& outputs,
                                const std::string& junit_help, const std::string& prom_help);

// Throws UsageError unless `format` is "table" or "json".
void check_output_format(const std::string& format);
// The format, and --junit, --prom and --prom-dir: each a file in a folder that exists, or a
// folder. Throws UsageError naming the option.
void check_verdict_outputs(const VerdictOutputs& outputs);

// "5%" or "0.05" as a fraction; throws UsageError naming --threshold otherwise.
double parse_threshold(std::string text);

// Writes the records to the files asked for (none when none is); a failure leaves none.
void write_verdict_files(const VerdictOutputs& outputs, const VerdictJob& job,
                         const VerdictRun& run, const std::vector<VerdictRecord>& records);

// Result files in the order given, each folder among them expanded to its .h5 files in name
// order (the default names sort by time), `excluded` left out. Throws UsageError for a folder
// without any.
std::vector<std::string> result_files(const std::vector<std::string>& given,
                                      const std::string& excluded = {});

}  // namespace collbench
