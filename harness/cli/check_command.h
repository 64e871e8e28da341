#pragma once
#include <string>

#include "harness/check/verdicts.h"
#include "harness/report/verdict_files.h"

namespace CLI {
class App;
}

namespace collbench {

struct CheckOptions {
  std::string file;
  std::string spec;
  std::string format = "table";
  std::string junit;  // JUnit XML, one test case per rule; empty: none
  std::string prom;   // Prometheus textfile, written atomically; empty: none
};

// A rule's verdict as JUnit and Prometheus see it: labelled with its selection ("any" where the
// rule leaves a field open), its value in GB/s or microseconds.
VerdictRecord check_record(const RuleVerdict& verdict, const std::string& spec_title);

void add_check_options(CLI::App& command, CheckOptions& options);

// `collbench check FILE.h5 --spec SPEC.toml`: acceptance verdicts, one per rule. Returns 0 when
// every rule passes (warnings are printed), 1 when one fails, 2 for a bad spec, file or option
// (then no output file is written).
int check_command(const CheckOptions& options);

}  // namespace collbench
