#include "violation.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace standin {

void violation(const std::string& call, const std::string& what) {
  const std::string line = fmt::format("collbench stand-in (pid {}): {}: {}\n", getpid(), call, what);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  std::abort();
}

bool rank_setting(const char* variable, int& rank, long& n) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return false;
  if (std::sscanf(text, "%d:%ld", &rank, &n) != 2)
    violation(variable, "'{}' is not RANK:N", text);
  return true;
}

}  // namespace standin
