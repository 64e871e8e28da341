#pragma once
#include <string>

namespace collbench {

struct ReportOptions {
  std::string file;
  std::string format = "table";
};

// `collbench report FILE.h5`: prints a stored run again. Returns the exit code.
int report_command(const ReportOptions& options);

}  // namespace collbench
