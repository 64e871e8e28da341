#pragma once
// One self-overwriting line on stderr: point, total, elapsed time and time left.
#include <chrono>
#include <cstddef>
#include <string>

namespace collbench {

class Progress {
 public:
  Progress(bool enabled, std::size_t total_points);
  void update(std::size_t done_points, const std::string& current);
  void finish();

 private:
  bool enabled_;
  std::size_t total_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace collbench
