#include "harness/measure/host_clock.h"

#include <sched.h>

#include <chrono>
#include <fstream>
#include <thread>

namespace collbench {
namespace {

// A sleep ends up to a timer slack (50 us by default on Linux) late; wake that early and more.
constexpr double kSleepLeadSeconds = 200e-6;
// A yield can keep the core from this rank for a microsecond even when nothing else runs: the
// last stretch before the moment is spun.
constexpr double kSpinSeconds = 20e-6;

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string steady_clock_domain() {
  std::ifstream boot_id("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(boot_id, id);
  return id;
}

double wait_until(double local_s) {
  for (;;) {
    const double now = steady_seconds();
    const double left = local_s - now;
    if (left <= 0) return now;
    if (left > 2 * kSleepLeadSeconds)
      std::this_thread::sleep_for(std::chrono::duration<double>(left - kSleepLeadSeconds));
    else if (left > kSpinSeconds)
      sched_yield();
  }
}

}  // namespace collbench
