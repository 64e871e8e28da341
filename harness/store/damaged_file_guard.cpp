#include "harness/store/damaged_file_guard.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "harness/errors.h"

namespace collbench {
namespace {

// Formatted before reading: a signal handler may only write and exit.
char g_message[1024];
std::size_t g_message_bytes = 0;

extern "C" void end_on_damaged_file(int) {
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, g_message, g_message_bytes);
  _exit(kExitUsage);
}

}  // namespace

DamagedFileGuard::DamagedFileGuard(const std::filesystem::path& path) {
  const std::string message = fmt::format(
      "collbench: {}: damaged: HDF5 crashed reading it; `h5dump {}` shows what it can read\n",
      path.string(), path.string());
  g_message_bytes = std::min(message.size(), sizeof g_message);
  std::memcpy(g_message, message.data(), g_message_bytes);
  struct sigaction action {};
  action.sa_handler = end_on_damaged_file;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous_segv_);
  sigaction(SIGBUS, &action, &previous_bus_);
}

DamagedFileGuard::~DamagedFileGuard() {
  sigaction(SIGSEGV, &previous_segv_, nullptr);
  sigaction(SIGBUS, &previous_bus_, nullptr);
}

}  // namespace collbench
