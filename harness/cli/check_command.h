#pragma once
#include <string>

#include "harness/cli/verdict_outputs.h"


namespace CLI {
class App;
}

namespace collbench {

struct CheckOptions {
  std::string file;  // empty: print the spec's rules
  std::string spec;
  VerdictOutputs outputs;  // JUnit: one test case per rule
};

void add_check_options(CLI::App& command, CheckOptions& options);

// `collbench check FILE.h5 --spec SPEC.toml`: acceptance verdicts, one per rule. Returns 0 when
// every rule passes (warnings are printed), 1 when one fails; throws UsageError or
// InvalidResultFile for a bad spec, file or option (then no output file is written). Without
// FILE, prints the spec's rules as parsed.
int check_command(const CheckOptions& options);

}  // namespace collbench
