#pragma once
// The one place that turns how a subcommand ends into its message and exit code
// (harness/errors.h), so that no command ends in std::terminate.
#include <exception>
#include <functional>
#include <string>

#include "harness/errors.h"

namespace collbench {

class Backend;

// The exit code an error ends any command with, by its type: bad usage or input (UsageError,
// InvalidResultFile, BackendUnavailable) 2; a corrupted control message (ControlCorruption) 1,
// a wrong result: the fabric or the library damages data; a fault (FaultError,
// CommunicationFault) and anything else 3.
int exit_code_of(const std::exception& error);

// Ends this rank of a job (`run`, `links`) on an error met once its communicators are up: prints
// what it was, on which rank and host, in which wait and at which point, and where every
// finished result is (`kept`), then aborts the job with the error's exit code.
[[noreturn]] void abort_job(const std::string& command, Backend& backend,
                            const std::exception& error, const std::string& kept);

// Runs `body` and returns its exit code. What it throws is printed, each line of the message
// after "collbench COMMAND: ", and ends it with exit_code_of: bad usage or input printed only
// where `may_print` (one rank of a job, since every rank meets the same input); the rest on
// every rank that meets it, an error of no type of ours as "internal error: ...". From then on a
// std::terminate (an exception out of a destructor or another thread) ends the process as an
// internal error too, with exit 3. Under MPI, `run` and `links` still end a fault of their
// own once the communicators are up: the job is aborted there, which a return cannot do.
int run_guarded(const std::string& command, bool may_print, const std::function<int()>& body);

// Prints bad usage or input as the guard does and returns exit 2: for `run` and `links` once
// MPI is up, whose rank 0 must print before MPI ends (MPI_Finalize waits for every rank), or a
// peer that exits 2 first gets it killed by mpirun before it has said why.
int usage_error_within_job(const std::string& command, bool may_print, const UsageError& error);

}  // namespace collbench
