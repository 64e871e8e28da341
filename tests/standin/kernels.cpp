// clang-format off
#include "device_emulation.h"  // first: what it defines comes before any CUDA header
// clang-format on
#include "kernels.h"

#include <cxxabi.h>
#include <ucontext.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "violation.h"

namespace standin {
namespace {

std::map<std::string, KernelBinder>& host_kernels() {
  static std::map<std::string, KernelBinder> kernels;
  return kernels;
}

// "void collbench::nccl::(anonymous namespace)::fill_kernel<float>(collbench::PatternRule,
// float*)" -> "fill_kernel<float>".
std::string unqualified(std::string name) {
  for (std::size_t at; (at = name.find("(anonymous namespace)::")) != std::string::npos;)
    name.erase(at, 23);
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ') start = i + 1;  // past the return type
    if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
    if (depth == 0 && c == '(') return name.substr(start, i - start);
  }
  return name.substr(start);
}

// Fibers of one block: each runs the kernel body until it ends or reaches the barrier.
struct Fiber {
  ucontext_t context{};
  std::vector<char> stack;
  bool done = false;
  uint3 index{};
};

thread_local ucontext_t* t_scheduler = nullptr;
thread_local Fiber* t_fiber = nullptr;
thread_local const std::function<void()>* t_body = nullptr;

void fiber_entry() {
  (*t_body)();
  t_fiber->done = true;
  swapcontext(&t_fiber->context, t_scheduler);
}

void run_block_as_fibers(const dim3& block, const std::function<void()>& body) {
  constexpr std::size_t kStack = 64 * 1024;
  std::vector<Fiber> fibers(std::size_t(block.x) * block.y * block.z);
  ucontext_t scheduler{};
  std::size_t n = 0;
  for (unsigned z = 0; z < block.z; ++z)
    for (unsigned y = 0; y < block.y; ++y)
      for (unsigned x = 0; x < block.x; ++x) {
        Fiber& f = fibers[n++];
        f.index = {x, y, z};
        f.stack.resize(kStack);
        getcontext(&f.context);
        f.context.uc_stack = {f.stack.data(), 0, kStack};
        f.context.uc_link = nullptr;
        makecontext(&f.context, fiber_entry, 0);
      }
  t_scheduler = &scheduler;
  t_body = &body;
  for (bool running = true; running;) {
    running = false;
    for (Fiber& f : fibers) {
      if (f.done) continue;
      t_fiber = &f;
      threadIdx = f.index;
      swapcontext(&scheduler, &f.context);
      running = running || !f.done;
    }
  }
  t_fiber = nullptr;
  t_scheduler = nullptr;
}

}  // namespace

std::string demangled(const char* name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 ? std::string(text.get()) : std::string(name);
}

void add_host_kernel(std::string name, KernelBinder bind) {
  host_kernels().emplace(std::move(name), std::move(bind));
}

const KernelBinder& host_kernel(const char* device_name, std::string_view call) {
  const std::string name = unqualified(demangled(device_name));
  const auto found = host_kernels().find(name);
  if (found == host_kernels().end())
    violation(call,
              "kernel {} ({}) has no host build in the stand-in (tests/standin/"
              "host_kernels.cpp)",
              name, device_name);
  return found->second;
}

void run_grid(const KernelLaunch& launch, bool synchronises_block,
              const std::function<void()>& thread_body) {
  gridDim = launch.grid;
  blockDim = launch.block;
  for (unsigned bz = 0; bz < launch.grid.z; ++bz)
    for (unsigned by = 0; by < launch.grid.y; ++by)
      for (unsigned bx = 0; bx < launch.grid.x; ++bx) {
        blockIdx = {bx, by, bz};
        if (synchronises_block) {
          run_block_as_fibers(launch.block, thread_body);
          continue;
        }
        for (unsigned z = 0; z < launch.block.z; ++z)
          for (unsigned y = 0; y < launch.block.y; ++y)
            for (unsigned x = 0; x < launch.block.x; ++x) {
              threadIdx = {x, y, z};
              thread_body();
            }
      }
}

void block_barrier() {
  if (!t_fiber)
    violation("__syncthreads",
              "called by a kernel the stand-in runs without fibers "
              "(register it with synchronises_block)");
  swapcontext(&t_fiber->context, t_scheduler);
}

}  // namespace standin
