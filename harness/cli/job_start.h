#pragma once
// How the commands that run as a job's ranks (`run`, `links`, `topo`) start their libraries,
// alike: which rank this is, the watchdog over the start, why a start failed and its exit code,
// and a lone process refused.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "backends/backend_options.h"
#include "backends/communicator.h"
#include "harness/measure/fault_guard.h"

namespace collbench {

// Throws UsageError naming --backend when this collbench is built without `backend`.
void require_built_backend(const std::string& backend);

class JobStart {
 public:
  // Asks the launcher which rank this is: before any library starts, since a singleton
  // MPI_Init sets the launcher's variables itself.
  explicit JobStart(std::string command);

  // Started by mpirun or srun, not a lone process.
  bool launched() const { return rank_.has_value(); }
  // Rank 0 or a lone process: the one that prints what every rank meets alike.
  bool may_print() const { return rank_.value_or(0) == 0; }

  // Puts the watchdog over this rank from here on, the libraries' start included: a
  // communicator that never forms (a peer that never arrives, a wrong interface) must not hang
  // the job.
  void watch(const Watchdog& watchdog) const;

  // Starts the libraries with `start`. Returns kExitOk once they are up; else prints why, drops
  // what had started (`drop_started`), ends the launcher's job in step with the other ranks, and
  // returns 2 where this host cannot run them (BackendUnavailable: printed by rank 0 after
  // `input`, the option that chose them, where there is one) or 3 where a library failed to
  // start (printed by every rank that met it). The watchdog names the wait "starting LIBRARIES".
  int start_libraries(std::string_view input, std::string_view libraries,
                      const std::function<void()>& start,
                      const std::function<void()>& drop_started = [] {}) const;

  // start_libraries for the backend `name` that --backend chose, into `backend`.
  int start_backend(const std::string& name, const BackendOptions& options,
                    std::unique_ptr<Backend>& backend) const;

  // Exit 2 for a process that was not started as a job's rank, `why` printed after
  // "started without mpirun/srun? ".
  int refuse_lone_process(std::string_view why) const;

 private:
  std::string command_;
  std::optional<int> rank_;
};

}  // namespace collbench
