#pragma once
// Device memory is host memory the program cannot touch: cudaMalloc maps a memory file twice,
// once without access (the address the program gets) and once readable and writable (the view
// the stand-in's streams, copies, kernels and collectives work through). A host access to
// device memory faults, and the fault is reported with the allocation it hit.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace standin {

// Who made an allocation, and so who may free it: ncclMemAlloc's device memory is cuMem's
// (the only memory a symmetric window takes), cudaFree refuses it as cudaFree does.
enum class Allocator { cuda_malloc, nccl_mem_alloc, cuda_host_alloc };
const char* name(Allocator allocator);

struct Allocation {
  std::byte* address;  // what the program holds
  std::byte* view;     // where the stand-in reads and writes it
  std::size_t bytes;
  int device;  // -1 for pinned host memory
  Allocator allocator;
  int registrations;  // NCCL registrations holding it (registration.h)

  bool on_device() const { return allocator != Allocator::cuda_host_alloc; }
};

// Null when the device's memory is used up.
void* allocate(std::size_t bytes, int device, Allocator allocator);
// Frees what `allocator` made at `address`, for `call`: anything else, or memory still
// registered with a communicator, is a violation.
void release(void* address, Allocator allocator, std::string_view call);
// A registration of `call` takes (+1) or drops (-1) the device allocation holding `address`.
void count_registration(const void* address, int change, std::string_view call);
std::optional<Allocation> allocation_holding(const void* address);
std::size_t device_memory_bytes();

// The stand-in's view of [address, address + bytes), `held` the allocation holding `address`
// (allocation_holding's answer): device memory through its readable view, other memory as it
// is. A range that starts in an allocation and overruns it, or a device range on another
// device than `device` (when >= 0), is a violation of `call`, naming `argument`.
std::byte* view_of(const std::optional<Allocation>& held, const void* address, std::size_t bytes,
                   int device, std::string_view call, const char* argument);
// As view_of, looking the allocation up.
std::byte* access(const void* address, std::size_t bytes, int device, std::string_view call,
                  const char* argument);
// As access(), and the range must lie in device memory of `device`.
std::byte* device_access(const void* address, std::size_t bytes, int device, std::string_view call,
                         const char* argument);

}  // namespace standin
