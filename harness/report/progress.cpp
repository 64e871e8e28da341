#include "progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace collbench {
namespace {

std::string clock_text(double seconds) {
  const auto whole = static_cast<long long>(seconds + 0.5);
  return fmt::format("{}:{:02}", whole / 60, whole % 60);
}

}  // namespace

Progress::Progress(bool quiet, bool forced, std::size_t total_points)
    : enabled_(!quiet && (forced || isatty(STDERR_FILENO))),
      terminal_(isatty(STDERR_FILENO)),
      total_(total_points),
      started_(std::chrono::steady_clock::now()) {}

void Progress::update(std::size_t done_points, const std::string& current) {
  if (!enabled_ || total_ == 0) return;
  const std::size_t tenths = done_points * 10 / total_;
  if (!terminal_ && tenths <= tenths_shown_) return;
  tenths_shown_ = tenths;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const std::string left =
      done_points ? clock_text(elapsed / done_points * (total_ - done_points)) : "?";
  const std::string line = fmt::format("[{}/{}] {} | {} elapsed, ~{} left", done_points, total_,
                                       current, clock_text(elapsed), left);
  if (terminal_)
    fmt::print(stderr, "\r\x1b[K{}", line);
  else
    fmt::print(stderr, "collbench run: {}\n", line);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_ || !terminal_) return;
  fmt::print(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

}  // namespace collbench
