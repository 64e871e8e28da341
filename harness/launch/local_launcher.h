#pragma once
// `collbench run --np N` without MPI: the ranks are child processes of this one, on this
// machine, and they find each other through the COLLBENCH_* variables set here.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace collbench {

struct LocalLaunch {
  std::filesystem::path executable;    // the binary to run, e.g. /proc/self/exe resolved
  std::vector<std::string> arguments;  // argv for every child, argv[0] included
  int nranks = 1;
  // Added to, and overriding, the environment every child inherits from this process.
  std::map<std::string, std::string> environment;
  // Each rank gets its own NCCL host id, so one machine stands in for a cluster of nodes.
  // Every rank talks over loopback sockets (NCCL_SOCKET_IFNAME=lo unless set) either way.
  bool virtual_nodes = false;
};

// How long a rank may take to exit after SIGTERM before it is sent SIGKILL.
inline constexpr std::chrono::seconds kRankTerminationGrace{5};

// Starts the ranks and waits for them; SIGINT and SIGTERM sent to this process are passed on to
// them, and a rank is killed (SIGKILL) when this process dies. The first rank to fail ends the
// others. Returns 0 when every rank exits 0, else the exit code of the first rank that failed,
// or 3 when it was killed by a signal or could not be started. Throws std::invalid_argument
// when nranks < 1.
int run_local_ranks(const LocalLaunch& launch);

// argv with the launcher's own flags removed: "--np N", "--np=N", "--virtual-nodes".
std::vector<std::string> without_launcher_flags(const std::vector<std::string>& argv);

}  // namespace collbench
