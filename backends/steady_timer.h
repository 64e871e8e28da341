#pragma once
// The host's monotonic clock as a Timer: what a backend whose operations end on the host (MPI)
// times them with.
#include <chrono>

#include "backends/communicator.h"

namespace collbench {

class SteadyTimer final : public Timer {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  double stop_seconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace collbench
