#pragma once
// Turns a signal or a hang into a clean exit 3 that names the rank and host, without ever
// cutting a result-file write in half: the file is consistent between writes, so exiting
// there keeps every finished point.
#include <functional>
#include <string>

namespace collbench {

// Installs SIGINT/SIGTERM handlers and, when timeout_s > 0, a watchdog thread.
// `who` names this process in messages, e.g. "rank 2 on node07".
void install_fault_guard(const std::string& who, double timeout_s);

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
};

// Describes the point being measured, for the watchdog's message.
void set_fault_context(const std::string& context);

// Called by the watchdog before it exits, to stop communication in flight (ncclCommAbort). It
// runs on a thread of its own and gets kAbortGraceSeconds; the exit does not wait longer.
inline constexpr double kAbortGraceSeconds = 10;
void set_fault_abort_hook(std::function<void()> hook);

}  // namespace collbench
