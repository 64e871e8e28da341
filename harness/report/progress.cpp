#include "progress.h"

#include <cstdio>

#include <fmt/format.h>

namespace collbench {
namespace {

std::string clock_text(double seconds) {
  const auto whole = static_cast<long long>(seconds + 0.5);
  return fmt::format("{}:{:02}", whole / 60, whole % 60);
}

}  // namespace

Progress::Progress(bool enabled, std::size_t total_points)
    : enabled_(enabled), total_(total_points), started_(std::chrono::steady_clock::now()) {}

void Progress::update(std::size_t done_points, const std::string& current) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const std::string left =
      done_points ? clock_text(elapsed / done_points * (total_ - done_points)) : "?";
  fmt::print(stderr, "\r\x1b[K[{}/{}] {} | {} elapsed, ~{} left", done_points, total_, current,
             clock_text(elapsed), left);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_) return;
  fmt::print(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

}  // namespace collbench
