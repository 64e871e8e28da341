#include "backends/ucx/ucs_signals.h"

#include <csignal>
#include <initializer_list>

#include <ucs/debug/debug.h>

namespace collbench::ucx {

void give_back_error_signals() {
  for (const int signal : {SIGILL, SIGSEGV, SIGBUS, SIGFPE}) {
    struct sigaction current {};
    // ucs_debug_disable_signal warns of a signal UCX does not hold (UCX_HANDLE_ERRORS=none, or
    // one left out of UCX_ERROR_SIGNALS): only a signal with a handler is given back.
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler != SIG_DFL)
      ucs_debug_disable_signal(signal);
  }
}

}  // namespace collbench::ucx
