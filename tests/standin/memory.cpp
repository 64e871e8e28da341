#include "memory.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "violation.h"

namespace standin {
namespace {

std::shared_mutex g_mutex;
std::map<std::uintptr_t, Allocation> g_allocations;  // by address
std::map<int, std::size_t> g_used;                   // device bytes in use, per device
struct sigaction g_previous_segv {};

std::size_t page_rounded(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
}

const Allocation* holding_locked(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  auto found = g_allocations.upper_bound(at);
  if (found == g_allocations.begin()) return nullptr;
  --found;
  const Allocation& a = found->second;
  return at < found->first + page_rounded(a.bytes) ? &a : nullptr;
}

// A program that reads or writes device memory from the host gets its access named.
void on_segv(int signal, siginfo_t* info, void* context) {
  const Allocation* hit = holding_locked(info->si_addr);
  if (hit && hit->on_device()) {
    char line[256];
    const int n = std::snprintf(
        line, sizeof(line),
        "collbench stand-in (pid %d): host access to device memory at %p: byte %zu of a "
        "%s of %zu bytes on device %d (a GPU program may not touch it from the host)\n",
        getpid(), info->si_addr,
        static_cast<std::size_t>(static_cast<std::byte*>(info->si_addr) - hit->address),
        name(hit->allocator), hit->bytes, hit->device);
    if (n > 0) (void)!write(STDERR_FILENO, line, static_cast<std::size_t>(n));
    signal = SIGABRT;
  }
  sigaction(SIGSEGV, &g_previous_segv, nullptr);
  if (signal == SIGABRT) std::abort();
  (void)context;  // the fault repeats under the previous handler
}

void install_fault_report() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous_segv);
  });
}

}  // namespace

const char* name(Allocator allocator) {
  switch (allocator) {
    case Allocator::cuda_malloc:
      return "cudaMalloc";
    case Allocator::nccl_mem_alloc:
      return "ncclMemAlloc";
    case Allocator::cuda_host_alloc:
      return "cudaHostAlloc";
  }
  return "?";
}

std::size_t device_memory_bytes() {
  const char* gib = std::getenv("COLLBENCH_STANDIN_MEMORY_GIB");
  return static_cast<std::size_t>((gib ? std::atof(gib) : 16.0) * (1ull << 30));
}

void* allocate(std::size_t bytes, int device, Allocator allocator) {
  const std::size_t length = page_rounded(bytes);
  std::unique_lock lock(g_mutex);
  if (allocator == Allocator::cuda_host_alloc) {
    void* host = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (host == MAP_FAILED) return nullptr;
    auto* at = static_cast<std::byte*>(host);
    g_allocations[reinterpret_cast<std::uintptr_t>(at)] = {at, at, bytes, -1, allocator, 0};
    return host;
  }
  if (g_used[device] + length > device_memory_bytes()) return nullptr;
  install_fault_report();
  const int file = memfd_create("collbench-standin-device", MFD_CLOEXEC);
  if (file < 0 || ftruncate(file, static_cast<off_t>(length)) != 0) {
    if (file >= 0) close(file);
    return nullptr;
  }
  void* address = mmap(nullptr, length, PROT_NONE, MAP_SHARED, file, 0);
  void* view = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
  close(file);
  if (address == MAP_FAILED || view == MAP_FAILED) return nullptr;
  auto* at = static_cast<std::byte*>(address);
  g_allocations[reinterpret_cast<std::uintptr_t>(at)] = {at, static_cast<std::byte*>(view), bytes,
                                                         device, allocator, 0};
  g_used[device] += length;
  return address;
}

void release(void* address, Allocator allocator, std::string_view call) {
  std::unique_lock lock(g_mutex);
  const auto found = g_allocations.find(reinterpret_cast<std::uintptr_t>(address));
  if (found == g_allocations.end() || found->second.allocator != allocator) {
    const Allocation* other = found == g_allocations.end() ? nullptr : &found->second;
    lock.unlock();
    if (other)
      violation(call, "{} is an allocation of {}, not of {}", fmt::ptr(address),
                name(other->allocator), name(allocator));
    violation(call, "{} is no {} allocation (freed twice, or never allocated)", fmt::ptr(address),
              name(allocator));
  }
  const Allocation a = found->second;
  if (a.registrations > 0) {
    lock.unlock();
    violation(call,
              "{} of {} bytes is still registered with {} communicator{} (ncclCommDeregister or "
              "ncclCommWindowDeregister first: NCCL would reach freed memory)",
              fmt::ptr(address), a.bytes, a.registrations, a.registrations == 1 ? "" : "s");
  }
  g_allocations.erase(found);
  const std::size_t length = page_rounded(a.bytes);
  munmap(a.address, length);
  if (a.on_device()) {
    munmap(a.view, length);
    g_used[a.device] -= length;
  }
}

void count_registration(const void* address, int change, std::string_view call) {
  std::unique_lock lock(g_mutex);
  Allocation* a = const_cast<Allocation*>(holding_locked(address));
  if (!a || !a->on_device()) {
    lock.unlock();
    violation(call, "{} is not device memory (no cudaMalloc or ncclMemAlloc holds it)",
              fmt::ptr(address));
  }
  a->registrations += change;
}

std::optional<Allocation> allocation_holding(const void* address) {
  std::shared_lock lock(g_mutex);
  const Allocation* a = holding_locked(address);
  if (!a) return std::nullopt;
  return *a;
}

std::byte* view_of(const std::optional<Allocation>& a, const void* address, std::size_t bytes,
                   int device, std::string_view call, const char* argument) {
  if (!a) return static_cast<std::byte*>(const_cast<void*>(address));
  const std::size_t offset =
      static_cast<std::size_t>(static_cast<const std::byte*>(address) - a->address);
  const char* what = name(a->allocator);
  if (offset + bytes > a->bytes)
    violation(call, "{} = {} + {} bytes overruns its {} of {} bytes by {} bytes", argument,
              fmt::ptr(a->address), offset, what, a->bytes, offset + bytes - a->bytes);
  if (a->on_device() && device >= 0 && a->device != device)
    violation(call, "{} lies on device {}, the call runs on device {}", argument, a->device,
              device);
  return a->view + offset;
}

std::byte* access(const void* address, std::size_t bytes, int device, std::string_view call,
                  const char* argument) {
  return view_of(allocation_holding(address), address, bytes, device, call, argument);
}

std::byte* device_access(const void* address, std::size_t bytes, int device, std::string_view call,
                         const char* argument) {
  const auto a = allocation_holding(address);
  if (!a || !a->on_device())
    violation(call, "{} = {} is not device memory (no cudaMalloc or ncclMemAlloc holds it)",
              argument,
              fmt::ptr(address));
  return view_of(a, address, bytes, device, call, argument);
}

}  // namespace standin
