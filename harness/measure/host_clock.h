#pragma once
// This host's steady clock in seconds, and a wait for a moment on it that leaves the core to
// other ranks while the moment is far.
namespace collbench {

double steady_seconds();

// Returns the first reading of the steady clock at or past `local_s`. Sleeps while more than a
// scheduler tick is left and yields between readings until the last microseconds, which it
// spins: ranks that outnumber the cores do not starve the one they wait for, and a yield's
// return (a microsecond in a VM) does not delay the start.
double wait_until(double local_s);

}  // namespace collbench
