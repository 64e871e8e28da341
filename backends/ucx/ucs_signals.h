#pragma once
// UCX's own crash handlers, which its libucs installs when it loads.

namespace collbench::ucx {

// libucs takes the error signals (UCX_ERROR_SIGNALS: SIGILL, SIGSEGV, SIGBUS, SIGFPE by default)
// when it loads, printing UCX's report for any crash of the process, and its sigaction() wrapper
// then keeps them, answering the old handler and setting no new one (ucs/debug/debug.c:
// ucs_debug_init, sigaction). Gives each back to what it was before UCX took it
// (ucs_debug_disable_signal), so that the process's own handlers take effect.
void give_back_error_signals();

}  // namespace collbench::ucx
