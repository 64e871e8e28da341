#include "fault_guard.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <exception>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "harness/errors.h"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

// Everything the guard knows, in one object: what signal handlers and the watchdog read, which
// are lock-free atomics and text formatted before the handlers are installed, and what the
// messages name, under `mutex`.
struct GuardState {
  std::atomic<int> write_depth{0};
  std::atomic<int> pending_signal{0};
  std::atomic<const char*> waiting_on{nullptr};
  std::atomic<Clock::rep> wait_started{0};
  std::atomic<double> slowest_sample{0};
  std::string interrupt_message[2];  // [0] SIGINT, [1] SIGTERM
  std::string who;
  std::mutex mutex;
  std::string context;
  std::string failed_wait;
  std::function<void()> abort_hook;  // set before the watchdog can fire
};

GuardState g_guard;

void write_stderr(const std::string& text) {
  [[maybe_unused]] auto written = ::write(STDERR_FILENO, text.data(), text.size());
}

[[noreturn]] void exit_after_signal(int signal) {
  write_stderr(g_guard.interrupt_message[signal == SIGINT ? 0 : 1]);
  std::_Exit(kExitFault);
}

void on_signal(int signal) {
  if (g_guard.write_depth.load() > 0) {
    g_guard.pending_signal.store(signal);
    return;
  }
  exit_after_signal(signal);
}

void abort_communication() {
  std::function<void()> hook;
  {
    std::lock_guard lock(g_guard.mutex);
    hook = g_guard.abort_hook;
  }
  if (!hook) return;
  std::atomic<bool> done{false};
  std::thread([&done, hook] {
    hook();
    done.store(true);
  }).detach();
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(kAbortGraceSeconds));
  while (!done.load() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

double limit_seconds(const Watchdog& watchdog) {
  if (!watchdog.grows_with_samples) return watchdog.timeout_s;
  return std::max(watchdog.timeout_s, kSlowestSampleMultiple * g_guard.slowest_sample.load());
}

void watch(Watchdog watchdog) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const char* what = g_guard.waiting_on.load();
    if (!what || g_guard.write_depth.load() > 0) continue;
    const double limit_s = limit_seconds(watchdog);
    const auto waited = std::chrono::duration<double>(
        Clock::now().time_since_epoch() - Clock::duration(g_guard.wait_started.load()));
    if (waited.count() < limit_s) continue;
    const std::string context = fault_context();
    write_stderr(fmt::format(
        "collbench: {}: timeout: no progress for {:.0f} s ({}) in {}{}{}; a peer rank is hung or "
        "dead; aborting, every finished point is in the result file\n",
        g_guard.who, limit_s,
        watchdog.grows_with_samples ? "the default watchdog; -T sets it" : "-T", what,
        context.empty() ? "" : " at ", context));
    abort_communication();
    std::_Exit(kExitFault);
  }
}

}  // namespace

void install_fault_guard(const std::string& who, const Watchdog& watchdog) {
  g_guard.who = who;
  g_guard.interrupt_message[0] = fmt::format(
      "collbench: {}: interrupted (SIGINT); every finished point is in the result file\n", who);
  g_guard.interrupt_message[1] = fmt::format(
      "collbench: {}: terminated (SIGTERM); every finished point is in the result file\n", who);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  if (watchdog.timeout_s > 0) std::thread(watch, watchdog).detach();
}

void note_sample_seconds(double seconds) {
  double slowest = g_guard.slowest_sample.load();
  while (seconds > slowest && !g_guard.slowest_sample.compare_exchange_weak(slowest, seconds)) {
  }
}

FileWriteSection::FileWriteSection() { g_guard.write_depth.fetch_add(1); }

FileWriteSection::~FileWriteSection() {
  if (g_guard.write_depth.fetch_sub(1) == 1) {
    if (const int signal = g_guard.pending_signal.load()) exit_after_signal(signal);
  }
}

CommunicationWait::CommunicationWait(const char* what)
    : what_(what), exceptions_(std::uncaught_exceptions()) {
  g_guard.wait_started.store(Clock::now().time_since_epoch().count());
  g_guard.waiting_on.store(what);
}

CommunicationWait::~CommunicationWait() {
  g_guard.waiting_on.store(nullptr);
  if (std::uncaught_exceptions() > exceptions_) {
    std::lock_guard lock(g_guard.mutex);
    g_guard.failed_wait = what_;
  }
}

std::string failed_wait() {
  std::lock_guard lock(g_guard.mutex);
  return g_guard.failed_wait;
}

std::string fault_context() {
  std::lock_guard lock(g_guard.mutex);
  return g_guard.context;
}

void set_fault_abort_hook(std::function<void()> hook) {
  std::lock_guard lock(g_guard.mutex);
  g_guard.abort_hook = std::move(hook);
}

void set_fault_context(const std::string& context) {
  std::lock_guard lock(g_guard.mutex);
  g_guard.context = context;
}

}  // namespace collbench
