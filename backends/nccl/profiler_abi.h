#pragma once
// The part of NCCL's profiler plugin interface, version 5, that the choice recorder uses.
// NCCL ships no header for plugins: each carries its own copy of the interface
// (NCCL 2.28.9, ext-profiler/example/nccl/profiler_v5.h). Field order and types here must match
// that layout; only the collective event's member of the descriptor's union is spelled out.
#include <cstddef>
#include <cstdint>

namespace collbench::nccl::profiler_abi {

enum Result : int { kSuccess = 0 };

// Event types (bits of the activation mask).
inline constexpr std::uint64_t kCollectiveEvent = 1u << 1;  // ncclProfileColl

struct CollectiveEvent {
  std::uint64_t seq_number;
  const char* func;
  const void* send_buffer;
  void* recv_buffer;
  std::size_t count;
  int root;
  const char* datatype;
  std::uint8_t channels;
  std::uint8_t warps;
  const char* algorithm;
  const char* protocol;
  void* parent_group;
};

struct EventDescriptor {
  std::uint64_t type;
  void* parent;
  int rank;
  union {
    CollectiveEvent collective;
  };
};

using Logger = void (*)(int level, unsigned long flags, const char* file, int line,
                        const char* format, ...);

struct ProfilerV5 {
  const char* name;
  Result (*init)(void** context, std::uint64_t comm_id, int* activation_mask,
                 const char* comm_name, int nodes, int nranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, EventDescriptor* descriptor);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, void* state_args);
  Result (*finalize)(void* context);
};

}  // namespace collbench::nccl::profiler_abi
