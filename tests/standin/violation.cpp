#include "violation.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace standin {

void violation(std::string_view call, const std::string& what) {
  const std::string line =
      fmt::format("collbench stand-in (pid {}): {}: {}\n", getpid(), call, what);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace standin
