#pragma once
// The errors a command ends with, and the exit code each means (docs/DESIGN.md, "Command line").
#include <stdexcept>

namespace collbench {

enum ExitCode : int {
  kExitOk = 0,
  kExitWrongOrFailed = 1,
  kExitUsage = 2,
  kExitFault = 3,
};

// Bad usage or bad input: the message names what was wrong; the process exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A runtime fault (timeout, dead peer, communicator error): exit 3.
struct FaultError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file that must be written is open in another process, which holds HDF5's lock on it: a
// fault, not bad input, since the same command works once that process closes it. Nothing was
// written to the file.
struct FileHeldOpen : FaultError {
  using FaultError::FaultError;
};

// A file could not be written: a full disk, a failing device, a mount gone. A fault, not bad
// input, since the same command works where there is room; the message names the file and the
// system's reason.
struct FileWriteFailed : FaultError {
  using FaultError::FaultError;
};

}  // namespace collbench
