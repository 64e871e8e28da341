#include "run_command.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "benches/backends/registry.h"
#include "harness/cli/usage_error.h"
#include "harness/launch/local_launcher.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/row_runner.h"
#include "harness/plan/sizes.h"
#include "harness/plan/sweep_plan.h"
#include "harness/provenance/clock.h"
#include "harness/provenance/launcher.h"
#include "harness/provenance/provenance.h"
#include "harness/provenance/version.h"
#include "harness/fit/curve_fits.h"
#include "harness/report/model_report.h"
#include "harness/report/progress.h"
#include "harness/report/reporter.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"
#include "topo/host_memory.h"

namespace collbench {
namespace {

constexpr int kRoot = 0;

// Every rank learns whether any rank failed, so that all of them exit the same way.
bool any_rank_failed(Communicator& world, bool failed) { return world.sum_over_ranks(failed) > 0; }

std::string memory_problem(const SweepPlan& plan, const JobTopology& topology) {
  const std::size_t send = std::max(plan.max_send_bytes, plan.max_recv_bytes);
  const std::size_t needed = 2 * send + plan.max_recv_bytes;  // send, receive, host staging
  const auto available = available_host_memory_bytes();
  if (!available || needed * topology.ranks_on_my_node <= *available) return "";
  return fmt::format(
      "-e/--maxbytes: the largest size needs {} per rank (send, receive and staging buffers), "
      "{} for the {} ranks on {}, but only {} is available there",
      format_size(needed), format_size(needed * topology.ranks_on_my_node),
      topology.ranks_on_my_node, topology.self.host, format_size(*available));
}

std::unique_ptr<ResultWriter> open_result_file(const RunConfig& config, std::string& problem) {
  try {
    if (config.default_out) std::filesystem::create_directories(config.out.parent_path());
    return std::make_unique<ResultWriter>(config.out, config.force);
  } catch (const std::exception& error) {
    problem = fmt::format("--out: {}", error.what());
    return nullptr;
  }
}

MeasureSettings measure_settings(const RunConfig& config, const Tuning& tuning) {
  MeasureSettings settings;
  settings.backend = config.backend;
  settings.placement = config.placement;
  settings.tuning = tuning;
  settings.modes = config.modes;
  settings.in_place = config.in_place;
  settings.warmup_iters = config.warmup_iters;
  settings.check_iters = config.check_iters;
  settings.stopping = config.stopping;
  return settings;
}

std::string row_label(const PlannedRow& row) {
  return fmt::format("{} {} {} {}", name(row.collective), name(row.datatype),
                     uses_reduce_op(row.collective) ? name(row.op) : "", format_size(row.shape.size_bytes));
}

// Rank 0's share of the run: the file, the table and the progress line.
class RootOutput {
 public:
  RootOutput(const RunConfig& config, std::unique_ptr<ResultWriter> writer, std::size_t total_points)
      : config_(config),
        writer_(std::move(writer)),
        reporter_(make_reporter("table", std::cout)),
        progress_(!config.quiet && (config.progress || isatty(STDERR_FILENO)), total_points) {}

  void begin(const Provenance& provenance, const JobTopology& topology, const RunDescription& run) {
    {
      FileWriteSection section;
      writer_->write_provenance(provenance);
      writer_->write_topology(topology.ranks);
    }
    if (!config_.quiet) reporter_->begin(run);
  }

  void add_row(const std::vector<PointResult>& points, const PlannedRow& row) {
    for (const auto& point : points) {
      FileWriteSection section;
      writer_->append_point(point);
      if (point.wrong > 0) wrong_ = true;
    }
    if (config_.fit) measured_.insert(measured_.end(), points.begin(), points.end());
    done_ += points.size();
    progress_.finish();
    if (!config_.quiet) reporter_->row(points);
    progress_.update(done_, row_label(row));
  }

  void finish(const std::vector<std::string>& notes, double seconds) {
    progress_.finish();
    std::optional<ModelReport> models;
    if (config_.fit) {
      FitOptions options;
      options.crossover_sizes = config_.crossover_sizes;
      try {
        models = fit_models(measured_, options);
      } catch (const std::exception& error) {  // the measurements stand without their models
        fmt::print(stderr, "collbench run: the fits failed ({}); the points are kept\n", error.what());
      }
    }
    if (models) {
      FileWriteSection section;
      writer_->write_models(*models);
    }
    {
      FileWriteSection section;
      writer_->finish(utc_now_iso8601());
    }
    if (!config_.quiet) reporter_->end();
    if (models && !config_.quiet)
      for (const auto& line : model_footer_lines(*models)) fmt::print("{}\n", line);
    for (const auto& note : notes) fmt::print("# note: {}\n", note);
    std::error_code ignored;
    const auto bytes = std::filesystem::file_size(config_.out, ignored);
    fmt::print("# {} points in {:.1f} s; results in {} ({})\n", done_, seconds,
               config_.out.string(), format_size(bytes));
  }

  bool wrong() const { return wrong_; }

 private:
  const RunConfig& config_;
  std::unique_ptr<ResultWriter> writer_;
  std::unique_ptr<Reporter> reporter_;
  Progress progress_;
  std::size_t done_ = 0;
  bool wrong_ = false;
  std::vector<PointResult> measured_;  // kept for the fits at the end
};

std::string describe(const Tuning& tuning) {
  return fmt::format("NCCL algorithm {}, protocol {}", tuning.algorithm.empty() ? "auto" : tuning.algorithm,
                     tuning.protocol.empty() ? "auto" : tuning.protocol);
}

// The plan's rows the backend runs with this tuning; a note for each collective left out.
std::vector<PlannedRow> rows_for(const SweepPlan& plan, const Backend& backend, const Tuning& tuning,
                                 std::vector<std::string>& notes) {
  std::vector<PlannedRow> rows;
  std::vector<CollectiveKind> left_out;
  for (const PlannedRow& row : plan.rows) {
    if (backend.supports(row.collective, tuning))
      rows.push_back(row);
    else if (std::find(left_out.begin(), left_out.end(), row.collective) == left_out.end())
      left_out.push_back(row.collective);
  }
  for (CollectiveKind kind : left_out)
    notes.push_back(fmt::format("{} has no {}; skipped with it", describe(tuning), name(kind)));
  return rows;
}

// One sweep of `rows` on `runner`'s communicator. False when --time-limit ended it.
bool sweep(RowRunner& runner, Communicator& world, const RunConfig& config,
           const std::vector<PlannedRow>& rows, std::vector<std::string>& notes,
           std::optional<RootOutput>& output, const std::function<double()>& elapsed) {
  for (const PlannedRow& row : rows) {
    std::optional<double> time_left;
    if (config.time_limit_s) time_left = *config.time_limit_s - elapsed();
    int go = !time_left || *time_left > 0;  // rank 0's clock decides for everyone
    world.broadcast(std::as_writable_bytes(std::span(&go, 1)), kRoot);
    const auto points = go ? runner.measure(row, time_left) : std::vector<PointResult>{};
    if (output && !points.empty()) output->add_row(points, row);
    if (points.size() < points_per_row(config)) {
      notes.push_back(fmt::format("--time-limit of {} s reached; the sweep stopped early",
                                  *config.time_limit_s));
      return false;
    }
  }
  return true;
}

int measure(Backend& backend, const RunConfig& config, const std::vector<std::string>& argv,
            const std::vector<std::string>& support_notes) {
  const auto started = std::chrono::steady_clock::now();
  const std::string start_utc = utc_now_iso8601();
  Communicator& world = backend.world();
  const bool root = world.rank() == kRoot;
  const DeviceDescription device = backend.device();
  const JobTopology topology = discover_topology(world, device);
  install_fault_guard(fmt::format("rank {} on {}", world.rank(), topology.self.host), config.timeout_s);
  set_fault_abort_hook([&backend] { backend.abort_communication(); });

  SweepPlan plan = plan_sweep(config, world.size());
  plan.notes.insert(plan.notes.begin(), support_notes.begin(), support_notes.end());
  std::vector<std::vector<PlannedRow>> rows_per_tuning;
  for (const Tuning& tuning : config.tunings)
    rows_per_tuning.push_back(rows_for(plan, backend, tuning, plan.notes));
  const auto first_collective = [&](std::size_t t) {
    const auto& rows = rows_per_tuning[t];
    return rows.empty() ? CollectiveKind::allreduce : rows.front().collective;
  };
  // Device buffers are the GPU's business: cudaMalloc answers for them.
  std::string problem = device.name.empty() ? memory_problem(plan, topology) : "";
  std::unique_ptr<RowRunner> runner;
  if (problem.empty()) {
    try {
      runner = std::make_unique<RowRunner>(world, measure_settings(config, config.tunings[0]), plan,
                                           first_collective(0));
    } catch (const std::bad_alloc&) {
      problem = fmt::format("-e/--maxbytes: cannot allocate buffers for {} on {}",
                            format_size(config.sweep.max_bytes), topology.self.host);
    }
  }
  if (any_rank_failed(world, !problem.empty())) {
    if (!problem.empty()) fmt::print(stderr, "collbench run: {}\n", problem);
    return kExitUsage;
  }
  std::unique_ptr<ResultWriter> writer;
  if (root) writer = open_result_file(config, problem);
  if (any_rank_failed(world, !problem.empty())) {
    if (root) fmt::print(stderr, "collbench run: {}\n", problem);
    return kExitUsage;
  }

  std::size_t total_rows = 0;
  for (const auto& rows : rows_per_tuning) total_rows += rows.size();
  std::optional<RootOutput> output;
  if (root) {
    output.emplace(config, std::move(writer), total_rows * points_per_row(config));
    const RunDescription run{std::string(collbench_version()), config.backend, backend.version(),
                             world.size(), topology.nodes, topology.hosts, start_utc,
                             shell_quoted(argv)};
    Provenance provenance = collect_provenance(config, argv, backend.version(), topology, start_utc);
    provenance.text.merge(backend.provenance());
    output->begin(provenance, topology, run);
  }

  const std::function<double()> elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  for (std::size_t t = 0; t < config.tunings.size(); ++t) {
    std::unique_ptr<Communicator> tuned;  // a communicator of its own per pinned combination
    if (t > 0) {
      if (rows_per_tuning[t].empty()) continue;
      runner.reset();
      tuned = backend.tuned_world(config.tunings[t]);
      try {  // the first call tells whether the library can run this combination here
        runner = std::make_unique<RowRunner>(*tuned, measure_settings(config, config.tunings[t]),
                                             plan, first_collective(t));
      } catch (const CommunicationFault& error) {
        plan.notes.push_back(fmt::format("{} cannot run here ({}); skipped",
                                         describe(config.tunings[t]), error.what()));
        continue;
      }
    }
    if (!sweep(*runner, world, config, rows_per_tuning[t], plan.notes, output, elapsed)) break;
  }
  if (!root) return kExitOk;
  output->finish(plan.notes, elapsed());
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
  const bool may_print = launcher_rank().value_or(0) == kRoot;
  RunConfig config;
  try {
    config = resolve(options, default_backend());
    const auto built = built_backends();
    if (std::find(built.begin(), built.end(), config.backend) == built.end())
      throw UsageError(fmt::format("--backend: '{}' is not built into this collbench (built: {})",
                                   config.backend, fmt::join(built, ", ")));
    if (config.local_ranks > 0) return launch_local_ranks(config, argv);
  } catch (const UsageError& error) {
    if (may_print) fmt::print(stderr, "collbench run: {}\n", error.what());
    return kExitUsage;
  }

  std::unique_ptr<Backend> backend;
  std::vector<std::string> support_notes;
  try {
    backend = start_backend(config.backend, BackendOptions{config.cuda_graphs});
    support_notes = fit_to_backend(config, *backend);
  } catch (const BackendUnavailable& error) {
    if (may_print) fmt::print(stderr, "collbench run: --backend {}: {}\n", config.backend, error.what());
    return kExitUsage;
  } catch (const UsageError& error) {
    if (backend->world().rank() == kRoot) fmt::print(stderr, "collbench run: {}\n", error.what());
    return kExitUsage;
  }
  try {
    return measure(*backend, config, argv, support_notes);
  } catch (const std::exception& error) {
    fmt::print(stderr, "collbench run: rank {} on {}: fault: {}; every finished point is in {}\n",
               backend->world().rank(), this_host(), error.what(), config.out.string());
    backend->abort(kExitFault);
  }
}

}  // namespace collbench
