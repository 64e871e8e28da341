#include "run_command.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "backends/registry.h"
#include "harness/cli/command_guard.h"
#include "harness/cli/job_file.h"
#include "harness/cli/job_start.h"
#include "harness/cli/run_description.h"
#include "harness/cli/run_output.h"
#include "harness/errors.h"
#include "harness/launch/local_launcher.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/host_probe.h"
#include "harness/measure/plausibility_bound.h"
#include "harness/measure/steady_allocator.h"
#include "harness/measure/sweep_passes.h"
#include "harness/measure/timer_step.h"
#include "harness/plan/sizes.h"
#include "harness/provenance/clock.h"
#include "harness/provenance/provenance.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"
#include "topo/host_memory.h"

namespace collbench {
namespace {

// Every rank learns whether any rank failed, so that all of them exit the same way.
bool any_rank_failed(Communicator& world, bool failed) {
  CommunicationWait wait("agreeing whether a rank failed");
  return world.sum_over_ranks(failed) > 0;
}

std::string memory_problem(const BufferSizes& buffers, const JobTopology& topology) {
  const std::size_t needed = buffers.send_bytes + buffers.recv_bytes;
  const auto available = available_host_memory_bytes();
  if (!available || needed * topology.ranks_on_my_node <= *available) return "";
  return fmt::format(
      "-e/--maxbytes: the largest size needs {} per rank (send and receive buffers), {} for the "
      "{} ranks on {}, but only {} is available there",
      format_size(needed), format_size(needed * topology.ranks_on_my_node),
      topology.ranks_on_my_node, topology.self.host, format_size(*available));
}

// Rank `r`'s node and local rank, for the placements.
std::vector<RankPlace> places_of(const JobTopology& topology) {
  std::vector<RankPlace> places;
  for (const auto& rank : topology.ranks) places.push_back({rank.node_index, rank.local_rank});
  return places;
}

// The run's buffers, for the largest row of any pass, allocated once here so that a size that
// does not fit is bad input (exit 2) before the result file exists. Empty `problem` on success.
RunBuffers allocate_buffers(Communicator& world, const std::vector<SweepPass>& passes,
                            const JobTopology& topology, const RunConfig& config,
                            bool host_memory, std::string& problem) {
  BufferSizes largest;
  for (const auto& pass : passes) largest = covering(largest, buffers_for(pass.plan));
  // Device buffers are the GPU's business: cudaMalloc answers for them.
  if (host_memory) problem = memory_problem(largest, topology);
  if (!problem.empty()) return {};
  try {
    return {world.allocate(largest.send_bytes), world.allocate(largest.recv_bytes)};
  } catch (const std::bad_alloc&) {
    problem = fmt::format("-e/--maxbytes: cannot allocate buffers for {} on {}",
                          format_size(config.sweep.max_bytes), topology.self.host);
    return {};
  }
}

int measure(Backend& backend, const RunConfig& config, const std::vector<std::string>& argv,
            std::vector<std::string> notes) {
  const auto started = std::chrono::steady_clock::now();
  const std::string start_utc = utc_now_iso8601();
  Communicator& world = backend.world();
  const bool root = world.rank() == kCoordinatorRank;
  set_fault_abort_hook([&backend] { backend.abort_communication(); });
  const DeviceDescription device = backend.device();
  const JobTopology topology = [&] {
    CommunicationWait wait("discovering the topology");
    return discover_topology(world, device);
  }();

  const double timer_step_s = [&] {
    CommunicationWait wait("measuring the timer's step");
    return job_timer_step(world);
  }();
  const auto passes = plan_passes(config, backend, places_of(topology), notes);
  std::string problem;
  RunBuffers buffers =
      allocate_buffers(world, passes, topology, config, device.name.empty(), problem);
  if (any_rank_failed(world, !problem.empty())) {
    if (!problem.empty()) fmt::print(stderr, "collbench run: {}\n", problem);
    return kExitUsage;
  }
  HostProbe probe;
  PlausibilityBound bound = measure_plausibility_bound(
      world, buffers, take_host_probe(world, buffers, ProbeMoment::start, probe));
  JobFile file = open_job_file(world, "run", config.output, config.keep_samples);
  if (file.exit_code != kExitOk) return file.exit_code;

  std::optional<RunOutput> output;
  if (root) {
    std::size_t points = 0;
    for (const auto& pass : passes)
      for (const PlannedRow& row : pass.rows) points += points_per_row(config, row);
    output.emplace(config, std::move(file.writer), points);
    Provenance provenance = collect_provenance(config, argv, backend.version(), topology, start_utc);
    provenance.text.merge(backend.provenance());
    provenance.integers[kTimerStepPs] = std::llround(timer_step_s * 1e12);
    record_plausibility_bound(provenance, bound);
    // As the file holds it, so that the points are judged, and `report` prints, as `run` did.
    bound = plausibility_bound_of(provenance);
    output->begin(provenance, topology, describe_run(provenance, topology.ranks));
    output->record_host_probe(probe);
  }

  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  const TimeLeft time_left = [&]() -> std::optional<double> {
    if (!config.time_limit_s) return std::nullopt;
    return *config.time_limit_s - elapsed();
  };
  const RowDone row_done = [&](const std::vector<PointResult>& points, const PlannedRow& row) {
    if (output) output->add_row(points, row);
  };
  const auto probe_now = [&](ProbeMoment moment) {
    take_host_probe(world, buffers, moment, probe);
    if (output) output->record_host_probe(probe);
  };
  std::size_t rows = 0, rows_swept = 0;
  for (const auto& pass : passes) rows += pass.rows.size();
  const CurveDone curve_done = [&](std::size_t curve_rows) {
    const bool halfway = rows_swept < (rows + 1) / 2;
    rows_swept += curve_rows;
    if (halfway && rows_swept >= (rows + 1) / 2 && rows_swept < rows)
      probe_now(ProbeMoment::middle);
  };
  const LoadSite load_site{topology.self.local_rank, topology.ranks_on_my_node};
  run_passes(backend, passes, config, load_site, timer_step_s, bound, buffers, time_left, row_done,
             curve_done, notes);
  probe_now(ProbeMoment::end);
  if (!root) return kExitOk;
  output->finish(notes, elapsed());
  return output->wrong() ? kExitWrongOrFailed : kExitOk;
}

// Keeps what the backend can run: a type or op it lacks is an error when named, and left out
// with a note when it came from `all`. Returns the notes.
std::vector<std::string> fit_to_backend(RunConfig& config, const Backend& backend) {
  std::vector<std::string> notes;
  const auto keep = [&](auto& values, bool every, const char* option) {
    std::vector<std::string> unsupported;
    for (const auto& value : values)
      if (!backend.supports(value)) unsupported.emplace_back(name(value));
    if (unsupported.empty()) return;
    if (!every)
      throw UsageError(fmt::format("{}: the {} backend here cannot run {}", option,
                                   backend.name(), fmt::join(unsupported, ", ")));
    std::erase_if(values, [&](const auto& value) { return !backend.supports(value); });
    notes.push_back(fmt::format("{} all: the {} backend here cannot run {}; left out", option,
                                backend.name(), fmt::join(unsupported, ", ")));
  };
  keep(config.datatypes, config.every_datatype, "-d/--datatype");
  keep(config.reduce_ops, config.every_reduce_op, "-o/--op");
  if (config.overlap_load && !backend.supports(*config.overlap_load))
    throw UsageError(fmt::format("--overlap-load: the {} backend runs no {} load (a GPU's)",
                                 backend.name(), name(*config.overlap_load)));
  return notes;
}

// `run --np N`: this process starts the N ranks and waits for them.
int launch_local_ranks(const RunConfig& config, const std::vector<std::string>& argv) {
  LocalLaunch launch;
  launch.executable = std::filesystem::read_symlink("/proc/self/exe");
  launch.arguments = without_launcher_flags(argv);
  launch.nranks = config.local_ranks;
  launch.virtual_nodes = config.virtual_nodes;
  try {
    launch.environment = local_launch_environment(config.backend, config.local_ranks,
                                                  config.virtual_nodes);
  } catch (const BackendUnavailable& error) {
    throw UsageError(fmt::format("--backend {}: {}", config.backend, error.what()));
  }
  return run_local_ranks(launch);
}

}  // namespace

int run_command(const RunOptions& options, const std::vector<std::string>& argv) {
  const JobStart job("run");
  RunConfig config = resolve(options, default_backend());
  require_built_backend(config.backend);
  if (config.local_ranks > 0) return launch_local_ranks(config, argv);

  keep_freed_memory();
  job.watch(config.sampling.watchdog);
  std::unique_ptr<Backend> backend;
  const int started = job.start_backend(
      config.backend,
      BackendOptions{config.cuda_graph_launches > 0, config.buffer_registration}, backend);
  if (started != kExitOk) return started;
  std::vector<std::string> support_notes;
  try {
    support_notes = fit_to_backend(config, *backend);
  } catch (const UsageError& error) {
    return usage_error_within_job("run", job.may_print(), error);
  }
  // A lone process is one rank: its collectives move nothing and print busbw 0.
  if (!job.launched() && !config.allow_single_rank)
    return job.refuse_lone_process(
        "This process is one rank alone, and a collective over one rank measures no "
        "communication. Start it with mpirun -np N or srun, or with --np N (nccl backend); "
        "--allow-single-rank runs it anyway");
  try {
    return measure(*backend, config, argv, std::move(support_notes));
  } catch (const std::exception& error) {
    abort_job("run", *backend, error,
              fmt::format("every finished point is in {}", config.output.path.string()));
  }
}

}  // namespace collbench
