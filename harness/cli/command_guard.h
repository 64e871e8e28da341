#pragma once
// The one place that turns how a subcommand ends into its message and exit code
// (harness/errors.h), so that no command ends in std::terminate.
#include <functional>
#include <string>

#include "harness/errors.h"

namespace collbench {

// Runs `body` and returns its exit code. What it throws is printed, each line of the message
// after "collbench COMMAND: ", and ends it: bad usage or input (UsageError, InvalidResultFile)
// with exit 2, printed only where `may_print` (one rank of a job, since every rank meets the
// same input); a fault (FaultError, FileHeldOpen among them) with exit 3, and anything else as
// "internal error: ..." with exit 3, both printed on every rank that meets them. From then on a
// std::terminate (an exception out of a destructor or another thread) ends the process as an
// internal error too, with exit 3. Under MPI, `run` and `links` still end a fault of their
// own once the communicators are up: the job is aborted there, which a return cannot do.
int run_guarded(const std::string& command, bool may_print, const std::function<int()>& body);

// Prints bad usage or input as the guard does and returns exit 2: for `run` and `links` once
// MPI is up, whose rank 0 must print before MPI ends (MPI_Finalize waits for every rank), or a
// peer that exits 2 first gets it killed by mpirun before it has said why.
int usage_error_within_job(const std::string& command, bool may_print, const UsageError& error);

}  // namespace collbench
