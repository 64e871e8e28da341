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

enum class MemoryKind { device, pinned_host };

struct Allocation {
  std::byte* address;  // what the program holds
  std::byte* view;     // where the stand-in reads and writes it
  std::size_t bytes;
  int device;  // -1 for pinned host memory
  MemoryKind kind;
};

// Null when the device's memory is used up.
void* allocate(std::size_t bytes, int device, MemoryKind kind);
// False when `address` is no allocation of `kind`.
bool release(void* address, MemoryKind kind);
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
