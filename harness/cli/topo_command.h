#pragma once
#include <string>

namespace collbench {

struct TopoOptions {
  std::string backend;  // empty: the default backend
};

// `collbench topo`: discovers the job it runs in (one process per rank, like `run`) and prints
// every rank's host, node, local rank, CPUs, GPU and network devices. Returns the exit code.
int topo_command(const TopoOptions& options);

}  // namespace collbench
