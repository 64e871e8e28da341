#pragma once
// Turns a signal or a hang into a clean exit 3 that names the rank and host, without ever
// cutting a result-file write in half: the file is consistent between writes, so exiting
// there keeps every finished point.
#include <functional>
#include <string>

namespace collbench {

// The watchdog's limit when -T is not given. Five minutes is far above any wait of the control
// plane we know (NCCL sets up a communicator of a thousand ranks in tens of seconds) and short
// against a nightly job's window; it also never falls below kSlowestSampleMultiple times the
// slowest sample seen, so a long bandwidth loop on a slow fabric is never cut short.
inline constexpr double kDefaultWatchdogSeconds = 300;
inline constexpr double kSlowestSampleMultiple = 100;

struct Watchdog {
  double timeout_s = kDefaultWatchdogSeconds;  // 0: off
  bool grows_with_samples = true;              // false when the user chose -T
};

// Installs SIGINT/SIGTERM handlers and, unless the timeout is 0, the watchdog thread.
// `who` names this process in messages, e.g. "rank 2 on node07".
void install_fault_guard(const std::string& who, const Watchdog& watchdog);

// How long this rank waited for one sample (a whole loop in bandwidth mode, the slowest group
// included), for the default watchdog's floor. Called on every rank.
void note_sample_seconds(double seconds);

// While one lives, a signal or the watchdog waits for it to end before exiting.
class FileWriteSection {
 public:
  FileWriteSection();
  ~FileWriteSection();
  FileWriteSection(const FileWriteSection&) = delete;
  FileWriteSection& operator=(const FileWriteSection&) = delete;
};

// While one lives, the watchdog counts: if it lives longer than the timeout, this rank has
// waited too long on its peers and the job is ended with exit 3. `what` must outlive it.
class CommunicationWait {
 public:
  explicit CommunicationWait(const char* what);
  ~CommunicationWait();
  CommunicationWait(const CommunicationWait&) = delete;
  CommunicationWait& operator=(const CommunicationWait&) = delete;

 private:
  const char* what_;
  int exceptions_ = 0;
};

// The wait that an exception last left ("" when none did), for the message that reports it.
std::string failed_wait();
// The point being measured, as set_fault_context set it ("" before the first point).
std::string fault_context();

// Describes the point being measured, for the watchdog's message.
void set_fault_context(const std::string& context);

// Called by the watchdog before it exits, to stop communication in flight (ncclCommAbort). It
// runs on a thread of its own and gets kAbortGraceSeconds; the exit does not wait longer.
inline constexpr double kAbortGraceSeconds = 10;
void set_fault_abort_hook(std::function<void()> hook);

}  // namespace collbench
