#pragma once
#include <string>

#include "harness/report/reporter.h"
#include "harness/store/result_file.h"

namespace collbench {

struct ReportOptions {
  std::string file;
  std::string format = "table";
};

// `collbench report FILE.h5`: prints a stored run again. Returns the exit code.
int report_command(const ReportOptions& options);

// A run's file (not a links file) through `reporter`: its rows, then its sections.
void report_run(const ResultFile& file, Reporter& reporter);

}  // namespace collbench
