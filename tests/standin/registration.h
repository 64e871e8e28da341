#pragma once
// NCCL's user-buffer registration as the stand-in plays it (NCCL 2.28.9, register/ and
// dev_runtime.cc). ncclCommRegister records a range of device memory for one communicator.
// ncclCommWindowRegister does the same where the communicator has no symmetric memory; where it
// has (NCCL: every rank reaches every other by CUDA P2P; here: all on one node) it is collective,
// takes only ncclMemAlloc's (cuMem) memory at 4096-byte offsets, and a collective whose buffers
// both start in symmetric windows runs one of NCCL's symmetric kernels: chosen whatever NCCL_ALGO
// and NCCL_PROTO say, and never reported to the profiler. A registration holds its memory until
// it is dropped or its communicator ends; freeing the memory first is a violation (memory.h).
#include <cstddef>
#include <memory>
#include <vector>

namespace standin {

struct Registration {
  const std::byte* address;
  std::size_t bytes;
  bool window;     // ncclCommWindowRegister's
  bool symmetric;  // a window of NCCL_WIN_COLL_SYMMETRIC on a communicator with symmetric memory
};

// Every registration of one communicator; the handles NCCL returns are their addresses.
class Registrations {
 public:
  Registration* add(const Registration& registration);
  // Null when `handle` is none of this communicator's.
  std::unique_ptr<Registration> take(const void* handle);
  // The registrations' hold on their memory ends with the communicator (ncclCommDestroy,
  // ncclCommAbort), as NCCL releases its registration cache then.
  void drop_all(const char* call);

  bool in_symmetric_window(const void* address) const;
  bool registered(const void* address, std::size_t bytes) const;

 private:
  std::vector<std::unique_ptr<Registration>> held_;
};

}  // namespace standin
