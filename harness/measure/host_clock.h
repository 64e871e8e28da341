#pragma once
#include <string>

// This host's steady clock in seconds, and a wait for a moment on it that leaves the core to
// other ranks while the moment is far.
namespace collbench {

double steady_seconds();

// Which steady clock this process reads: processes that return the same non-empty text read
// one clock (Linux: the kernel's boot id; CLOCK_MONOTONIC is the kernel's, whatever network
// namespace or container a rank runs in). Empty where unknown.
std::string steady_clock_domain();

// Returns the first reading of the steady clock at or past `local_s`. Sleeps while more than a
// scheduler tick is left and yields between readings until the last microseconds, which it
// spins: ranks that outnumber the cores do not starve the one they wait for, and a yield's
// return (a microsecond in a VM) does not delay the start.
double wait_until(double local_s);

}  // namespace collbench
