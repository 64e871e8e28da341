#include "choice_recorder.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "profiler_abi.h"

namespace collbench::nccl {
namespace {

using namespace profiler_abi;

struct Launch {
  const void* send_buffer;
  std::size_t count;
  std::string algorithm;
  std::string protocol;
  int channels;
  auto operator<=>(const Launch&) const = default;
};

// NCCL reports from the thread that launches and, for CUDA graphs with network steps, from a
// CUDA host-callback thread.
std::mutex g_mutex;
std::map<Launch, long long> g_tally;
std::atomic<int> g_communicators{0};
int g_context;  // NCCL wants a context per communicator; the recorder needs none

Result init(void** context, std::uint64_t, int* activation_mask, const char*, int, int, int,
            Logger) {
  *context = &g_context;
  *activation_mask = static_cast<int>(kCollectiveEvent);
  g_communicators.fetch_add(1, std::memory_order_relaxed);
  return kSuccess;
}

// No handle: NCCL then never stops or updates the event, and the recorder keeps no state per
// event.
Result start_event(void*, void** handle, EventDescriptor* descriptor) {
  *handle = nullptr;
  if (descriptor->type != kCollectiveEvent) return kSuccess;
  const CollectiveEvent& event = descriptor->collective;
  Launch launch{event.send_buffer, event.count, event.algorithm ? event.algorithm : "",
                event.protocol ? event.protocol : "", event.channels};
  const std::lock_guard lock(g_mutex);
  ++g_tally[std::move(launch)];
  return kSuccess;
}

Result stop_event(void*) { return kSuccess; }
Result record_event_state(void*, int, void*) { return kSuccess; }
Result finalize(void*) { return kSuccess; }

}  // namespace

int profiled_communicators() { return g_communicators.load(std::memory_order_relaxed); }

LibraryChoice take_choice(const void* begin, std::size_t bytes, std::size_t count) {
  std::map<Launch, long long> tally;
  {
    const std::lock_guard lock(g_mutex);
    tally.swap(g_tally);
  }
  const auto first = static_cast<const std::byte*>(begin);
  const std::less<const std::byte*> before;
  const Launch* most = nullptr;
  long long most_launches = 0;
  for (const auto& [launch, launches] : tally) {
    const auto send = static_cast<const std::byte*>(launch.send_buffer);
    const bool inside = !before(send, first) && before(send, first + bytes);
    if (inside && launch.count == count && launches > most_launches) {
      most = &launch;
      most_launches = launches;
    }
  }
  LibraryChoice choice;
  if (most) {
    store_choice_name(most->algorithm, choice.algorithm);
    store_choice_name(most->protocol, choice.protocol);
    choice.channels = most->channels;
  }
  return choice;
}

}  // namespace collbench::nccl

// The symbol NCCL looks up (dlsym) for a version-5 profiler.
extern "C" {
__attribute__((visibility("default"))) collbench::nccl::profiler_abi::ProfilerV5 ncclProfiler_v5{
    "collbench", collbench::nccl::init, collbench::nccl::start_event, collbench::nccl::stop_event,
    collbench::nccl::record_event_state, collbench::nccl::finalize};
}
