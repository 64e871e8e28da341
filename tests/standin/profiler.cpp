#include "profiler.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "backends/nccl/profiler_abi.h"
#include "datatypes.h"

namespace standin {
namespace {

namespace abi = collbench::nccl::profiler_abi;

const abi::ProfilerV5* plugin() {
  static const abi::ProfilerV5* loaded = []() -> const abi::ProfilerV5* {
    const char* setting = std::getenv("NCCL_PROFILER_PLUGIN");
    if (!setting || !*setting || std::string(setting) == "none") return nullptr;
    void* library = std::string(setting) == "STATIC_PLUGIN" ? dlopen(nullptr, RTLD_NOW)
                                                            : dlopen(setting, RTLD_NOW);
    return library ? static_cast<const abi::ProfilerV5*>(dlsym(library, "ncclProfiler_v5"))
                   : nullptr;
  }();
  return loaded;
}

void ignore_log(int, unsigned long, const char*, int, const char*, ...) {}

}  // namespace

void profile_communicator(ncclComm& comm) {
  const abi::ProfilerV5* p = plugin();
  if (!p) return;
  int mask = 0;
  void* context = nullptr;
  if (p->init(&context, reinterpret_cast<std::uint64_t>(&comm), &mask, comm.name.c_str(),
              comm.nranks, comm.nranks, comm.rank, ignore_log) == abi::kSuccess &&
      (mask & abi::kCollectiveEvent))
    comm.profiler_context = context;
}

void profile_collective(ncclComm& comm, const Collective& c, const Choice& choice, const void* send,
                        void* receive) {
  const abi::ProfilerV5* p = plugin();
  // An alltoall is a send and a receive per peer (src/enqueue.cc, taskAppend): NCCL reports
  // point-to-point events for it, never a collective one with an algorithm. Sends and receives
  // never get here (enqueue groups them).
  if (!p || !comm.profiler_context || c.kind == CollectiveKind::all_to_all) return;
  // collTaskAppend (src/enqueue.cc) counts an allgather's and a broadcast's elements in bytes,
  // of ncclInt8, before src/plugin/profiler.cc (ncclProfilerStartTaskEvents) reports the task.
  const bool in_bytes = c.kind == CollectiveKind::all_gather || c.kind == CollectiveKind::broadcast;
  const std::size_t count = in_bytes ? c.count * element_bytes(c.type) : c.count;
  const ncclDataType_t type = in_bytes ? ncclInt8 : c.type;
  abi::EventDescriptor descriptor{};
  descriptor.type = abi::kCollectiveEvent;
  descriptor.rank = comm.rank;
  descriptor.collective = {0,
                           name(c.kind),
                           send,
                           receive,
                           count,
                           c.peer,
                           type_name(type),
                           2,
                           16,
                           choice.algorithm.c_str(),
                           choice.protocol.c_str(),
                           nullptr};
  void* handle = nullptr;
  if (p->start_event(comm.profiler_context, &handle, &descriptor) == abi::kSuccess && handle)
    p->stop_event(handle);
}

void profile_end(ncclComm& comm) {
  if (const abi::ProfilerV5* p = plugin(); p && comm.profiler_context)
    p->finalize(comm.profiler_context);
  comm.profiler_context = nullptr;
}

}  // namespace standin
