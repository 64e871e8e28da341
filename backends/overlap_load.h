#pragma once
// Work that runs beside a collective, as a training step's compute runs beside its gradients'
// allreduce (`run --overlap-load`): what the two cost each other says how much of the
// collective a step could hide, measured instead of assumed.
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace collbench {

// memory: a memory-bound loop (a GPU kernel streaming device memory; on hosts a thread
// streaming arrays larger than the caches, on a core the ranks leave spare). gemm: a
// compute-bound matrix multiply on the GPU.
enum class LoadKind { memory, gemm };

std::span<const LoadKind> all_load_kinds();
std::string_view name(LoadKind kind);
std::optional<LoadKind> parse_load_kind(std::string_view text);

// Where on its node a rank runs, so that a host load can take a core no rank uses.
struct LoadSite {
  int local_rank = 0;
  int ranks_per_node = 1;
};

class OverlapLoad {
 public:
  virtual ~OverlapLoad() = default;
  // Chooses the work of one unit so that, run alone, it takes about `seconds`.
  virtual void size_for(double seconds) = 0;
  // Starts one unit and returns at once: what the caller runs next runs beside it.
  virtual void start() = 0;
  // Waits for the unit; its time from start() to its end.
  virtual double finish_seconds() = 0;
  // How the load runs here, for the run's provenance ("core 5", "no spare core: ...").
  virtual std::string_view placement() const = 0;
};

// Sizing shared by every load: units are repeated passes of one kernel or loop, so a unit of
// `seconds` is that many passes of the time one pass took alone, at least one.
int passes_for(double seconds, double one_pass_seconds);

}  // namespace collbench
