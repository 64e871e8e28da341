#pragma once
// Kernels run on the host: collbench's kernel sources compiled by the host compiler
// (host_kernels.cpp), found by the name nvcc registers for each, and run block by block on the
// launch's stream thread. Threads of a block run one after another, or, for a kernel that
// synchronises its block (__syncthreads), as fibers that take turns at each barrier.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace standin {

struct KernelLaunch {
  dim3 grid;
  dim3 block;
};

// Copies a launch's arguments (device pointers translated to the stand-in's view) and returns
// the work that runs it.
using KernelBinder = std::function<std::function<void(const KernelLaunch&)>(void** arguments)>;

// Adds a host build; `name` is the kernel's unqualified name with its template arguments, as
// the demangler spells them: "fill_kernel<float>".
void add_host_kernel(std::string name, KernelBinder bind);
// The host build of the kernel nvcc registered as `device_name` (mangled); a violation of
// `call` when there is none.
const KernelBinder& host_kernel(const char* device_name, std::string_view call);
// `name` demangled ("signed char" for typeid(std::int8_t).name()); as it is when it is no
// mangled name.
std::string demangled(const char* name);

// Runs the launch's grid on this thread.
void run_grid(const KernelLaunch& launch, bool synchronises_block,
              const std::function<void()>& thread_body);
// A block's barrier, for the host build's __syncthreads.
void block_barrier();

}  // namespace standin
