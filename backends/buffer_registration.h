#pragma once
// Whether the run's buffers are registered with the library for each communicator's collectives
// (nccl-tests' -R, with its numbers): not at all, each rank's own (ncclCommRegister), or as
// symmetric windows all ranks of a communicator register together (ncclCommWindowRegister).
namespace collbench {

enum class BufferRegistration { none = 0, local = 1, symmetric = 2 };

// How the record names it (settings' buffer_registration).
inline const char* name(BufferRegistration registration) {
  switch (registration) {
    case BufferRegistration::none:
      return "none";
    case BufferRegistration::local:
      return "local";
    case BufferRegistration::symmetric:
      return "symmetric";
  }
  return "none";
}

}  // namespace collbench
