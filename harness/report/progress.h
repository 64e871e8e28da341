#pragma once
// Progress on stderr: point, total, elapsed time and time left. On a terminal one line that
// overwrites itself; elsewhere (a Slurm log, a pipe) a plain line at every tenth of the sweep,
// without carriage returns or escape codes.
#include <chrono>
#include <cstddef>
#include <string>

namespace collbench {

class Progress {
 public:
  // `forced`: also when stderr is not a terminal (--progress); `quiet` turns it off.
  Progress(bool quiet, bool forced, std::size_t total_points);
  void update(std::size_t done_points, const std::string& current);
  void finish();

 private:
  bool enabled_;
  bool terminal_;
  std::size_t total_;
  std::size_t tenths_shown_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace collbench
