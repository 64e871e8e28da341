#include "run_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "backends/registry.h"
#include "collectives/collective.h"
#include "harness/cli/option_values.h"
#include "harness/errors.h"

namespace collbench {
namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// NCCL's names, as NCCL_ALGO and NCCL_PROTO take them (case does not matter).
constexpr std::string_view kNcclAlgorithms[] = {"Ring",         "Tree", "CollnetDirect",
                                                "CollnetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::string_view kNcclProtocols[] = {"LL", "LL128", "Simple"};

// The library's own choice (""), then each listed name in NCCL's spelling.
std::vector<std::string> nccl_choices(const std::string& text, const char* option,
                                      std::span<const std::string_view> known) {
  std::vector<std::string> choices{""};
  if (text.empty()) return choices;
  for (const auto& item : split_list(text)) {
    const auto match = std::find_if(known.begin(), known.end(),
                                    [&](std::string_view name) { return same_ignoring_case(name, item); });
    if (match == known.end())
      throw UsageError(fmt::format("{}: unknown value '{}' (expected one of {})", option, item,
                                   fmt::join(known, ",")));
    if (std::find(choices.begin(), choices.end(), *match) == choices.end())
      choices.emplace_back(*match);
  }
  return choices;
}

// --placement names the placements that split the whole job; packed and spread come with --ranks.
std::optional<Placement> job_placement(std::string_view text) {
  const auto placement = parse_placement(text);
  return placement && !is_subset(*placement) ? placement : std::nullopt;
}

// World unless --ranks alone asks for subsets; "all" is every placement.
std::vector<Placement> placements_of(const RunOptions& o) {
  if (o.placement.empty()) return o.rank_counts.empty() ? std::vector{Placement::world}
                                                        : std::vector<Placement>{};
  return parse_list<Placement>(o.placement, "--placement", job_placement, job_placements());
}

std::vector<Tuning> tunings_of(const RunOptions& o) {
  std::vector<Tuning> tunings;
  for (const auto& algorithm : nccl_choices(o.nccl_algorithms, "--nccl-algo", kNcclAlgorithms))
    for (const auto& protocol : nccl_choices(o.nccl_protocols, "--nccl-proto", kNcclProtocols))
      if (tunings.empty() || !algorithm.empty() || !protocol.empty())
        tunings.push_back(Tuning{algorithm, protocol});
  return tunings;
}

}  // namespace

void add_run_options(CLI::App& run, RunOptions& o) {
  add_size_options(run, o.sizes, SizeSteps::either);
  run.add_option("-g,--ngpus", o.gpus_per_process,
                 "nccl-tests' GPUs per process: 1 (collbench runs one rank per GPU)");
  run.add_option("-t,--nthreads", o.threads_per_process,
                 "nccl-tests' threads per process: 1 (one rank per process)");
  run.add_option("-a,--average", o.rank_average,
                 "nccl-tests' time over ranks: 3, the slowest (collbench's only one)");
  run.add_flag("--allow-single-rank", o.allow_single_rank,
               "run one rank started without mpirun, srun or --np (measures no communication)");
  add_sampling_options(run, o.sampling,
                       {.warmup = "untimed operations per point (at least 1 in its first round)",
                        .rounds = "measure each point in this many interleaved rounds, the order "
                                  "reshuffled per round"});
  run.add_option("-c,--check", o.check_iters, "validation operations per point (0: none)")
      ->capture_default_str();
  run.add_option("-d,--datatype", o.datatypes, "datatypes: a list or all")->capture_default_str();
  run.add_option("-o,--op", o.reduce_ops, "reduction ops: a list or all")->capture_default_str();
  run.add_option("-G,--cudagraph", o.cuda_graph_launches,
                 "N: capture each sample's operations as a CUDA graph, launched N times a "
                 "bandwidth sample (nccl backend)")
      ->capture_default_str();
  run.add_option("-R,--local_register", o.local_register,
                 "register the buffers with each communicator (nccl backend): 0 none, 1 local "
                 "(ncclCommRegister), 2 symmetric windows (ncclCommWindowRegister); 1 and 2 take "
                 "them from ncclMemAlloc")
      ->capture_default_str();
  run.add_option("--sync", o.sync,
                 "how latency samples start: window (every rank at one moment of synchronised "
                 "clocks) or barrier (when a barrier releases it, as OSU)")
      ->capture_default_str();
  run.add_option("--overlap-load", o.overlap_load,
                 "after each latency point, time it beside a compute load and the load beside it: "
                 "memory (a memory-bound loop: a GPU kernel, or a thread on a spare core) or gemm "
                 "(a matrix multiply, GPUs)");
  run.add_option("--keep-samples", o.keep_samples,
                 fmt::format("raw samples the file keeps per point: all, capped (at most {} per "
                             "rank, evenly spaced) or summary (none; the statistics always use "
                             "every sample)",
                             kCappedSamples))
      ->capture_default_str();
  run.add_option("--ops", o.collectives,
                 fmt::format("collectives: a list of {}, or all (allreduce_hier: the allreduce "
                             "composed inside and across nodes)",
                             fmt::join(names_of(all_collectives()), ",")))
      ->capture_default_str();
  run.add_flag_callback(
      "--list-ops",
      [] {
        for (CollectiveKind kind : all_collectives())
          fmt::print("{} {}\n", name(kind),
                     describe(kind).composed_across_nodes ? "composed" : "library");
        throw CLI::Success();
      },
      "print the collectives --ops takes, one a line with how it runs (library: called from the "
      "backend's library; composed: by collbench from sub-communicators), and exit");
  run.add_option("-r,--root", o.root,
                 "the root rank of broadcast, reduce, gather and scatter, in each communicator "
                 "(nccl-tests' -r)")
      ->capture_default_str();
  run.add_option("--backend", o.backend, "nccl or mpi (default: nccl where a GPU is usable)");
  run.add_option("--np", o.local_ranks,
                 "start this many ranks on this machine without mpirun (nccl backend)");
  run.add_flag("--virtual-nodes", o.virtual_nodes,
               "with --np: each rank its own NCCL host (NCCL_HOSTID), so ranks sharing one GPU "
               "talk over NCCL's network path");
  run.add_option("--nccl-algo", o.nccl_algorithms,
                 "also run the sweep with each of these NCCL algorithms pinned (Ring,Tree,...)");
  run.add_option("--nccl-proto", o.nccl_protocols,
                 "also run the sweep with each of these NCCL protocols pinned (LL,LL128,Simple)");
  run.add_option("--mode", o.mode, "latency, bandwidth or both")->capture_default_str();
  run.add_option("--placement", o.placement,
                 "world, intra (one communicator per node), inter (one per local rank), a list, "
                 "or all (default: world)");
  run.add_option("--ranks", o.rank_counts,
                 "also measure sub-communicators of these sizes (a list, or pow2), for T(p)");
  run.add_option("--spread", o.spread,
                 "--ranks subsets: packed (fill a node first) or spread (round-robin over nodes)")
      ->capture_default_str();
  run.add_flag("--inplace", o.in_place, "also measure in place (nccl-tests' second column group)");
  add_output_options(run, o.output, "result file", "<backend>");
  run.add_option("-J,--output_file", o.output_json,
                 "also write nccl-tests' JSON (schema 3) to this .json file once the run ends");
  run.add_option("--time-limit", o.time_limit_s, "seconds for the whole sweep (0: none)")
      ->capture_default_str();
  run.add_flag("--quiet", o.quiet, "no progress line and no table");
  run.add_flag("--progress", o.progress, "show progress even when stderr is not a terminal");
  run.add_flag("--no-fit", o.no_fit, "skip the alpha-beta fits at the end");
  run.add_option("--crossover-sizes", o.crossover_sizes,
                 "sizes for the rank-count crossover p* (default 25M and the largest measured)")
      ->delimiter(',');
}

RunConfig resolve(const RunOptions& o, const std::string& default_backend) {
  RunConfig config;
  SizeSweep sweep = resolve_sizes(o.sizes);
  config.sweep = sweep.spec;
  config.sizes = std::move(sweep.sizes);

  config.collectives = parse_list<CollectiveKind>(o.collectives, "--ops", parse_collective,
                                                  all_collectives());
  config.datatypes = parse_list<DataType>(o.datatypes, "-d/--datatype", parse_datatype,
                                          all_datatypes());
  config.reduce_ops = parse_list<ReduceOp>(o.reduce_ops, "-o/--op", parse_reduce_op,
                                           all_reduce_ops());
  config.every_datatype = o.datatypes == "all";
  config.every_reduce_op = o.reduce_ops == "all";
  if (o.mode == "both")
    config.modes = {Mode::latency, Mode::bandwidth};
  else if (const auto mode = parse_mode(o.mode))
    config.modes = {*mode};
  else
    throw UsageError(fmt::format("--mode: unknown value '{}' (latency, bandwidth or both)", o.mode));
  config.in_place = o.in_place ? std::vector<bool>{false, true} : std::vector<bool>{false};

  config.backend = o.backend.empty() ? default_backend : o.backend;
  config.placements = placements_of(o);
  if (o.rank_counts == "pow2") {
    config.rank_counts_pow2 = true;
  } else if (!o.rank_counts.empty()) {
    for (const auto& item : split_list(o.rank_counts)) {
      int count = 0;
      const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), count);
      require(error == std::errc() && end == item.data() + item.size() && count >= 2,
              fmt::format("--ranks: '{}' is not a rank count of 2 or more (a list, or pow2)", item));
      if (std::find(config.rank_counts.begin(), config.rank_counts.end(), count) ==
          config.rank_counts.end())
        config.rank_counts.push_back(count);
    }
  }
  const auto subset = parse_placement(o.spread);
  require(subset && is_subset(*subset),
          fmt::format("--spread: unknown value '{}' (packed or spread)", o.spread));
  config.subset_placement = *subset;
  require(o.cuda_graph_launches >= 0, "-G/--cudagraph must not be negative");
  const BackendCapabilities can = capabilities_of(config.backend);
  require(o.cuda_graph_launches == 0 || can.cuda_graphs,
          "-G/--cudagraph needs the nccl backend");
  config.cuda_graph_launches = o.cuda_graph_launches;
  config.tunings = tunings_of(o);
  require(config.tunings.size() == 1 || can.pinned_tuning,
          "--nccl-algo/--nccl-proto need the nccl backend");
  require(o.local_register >= 0 && o.local_register <= 2,
          fmt::format("-R/--local_register: {} is none of 0 (none), 1 (local) or 2 (symmetric)",
                      o.local_register));
  require(o.local_register == 0 || can.buffer_registration,
          "-R/--local_register needs the nccl backend");
  config.buffer_registration = static_cast<BufferRegistration>(o.local_register);
  // NCCL 2.28 hands a collective whose buffers lie in symmetric windows to its symmetric kernels
  // before it reads NCCL_ALGO and NCCL_PROTO: a pin would be recorded but not hold.
  require(config.buffer_registration != BufferRegistration::symmetric ||
              config.tunings.size() == 1,
          "-R 2 with --nccl-algo/--nccl-proto: NCCL runs collectives on symmetric windows with its "
          "symmetric kernels whatever NCCL_ALGO and NCCL_PROTO say, so the pins would not hold; "
          "pin with -R 0 or 1");
  require(o.local_ranks >= 0, "--np must not be negative");
  require(o.local_ranks == 0 || can.starts_without_mpi,
          fmt::format("--np: the {} backend starts its ranks through mpirun or srun; --np starts "
                      "ranks without them, for the nccl backend",
                      config.backend));
  require(!o.virtual_nodes || o.local_ranks > 0, "--virtual-nodes needs --np");
  config.local_ranks = o.local_ranks;
  config.virtual_nodes = o.virtual_nodes;
  config.allow_single_rank = o.allow_single_rank;
  require(o.gpus_per_process.value_or(1) == 1,
          fmt::format("-g {}: collbench runs one rank per GPU; start {} ranks per node instead "
                      "(mpirun -npernode, srun --ntasks-per-node, or --np for one node)",
                      o.gpus_per_process.value_or(1), o.gpus_per_process.value_or(1)));
  require(o.threads_per_process.value_or(1) == 1,
          fmt::format("-t {}: collbench runs one rank per process; start that many more "
                      "processes instead (mpirun -np, srun -n, or --np)",
                      o.threads_per_process.value_or(1)));
  require(o.rank_average.value_or(3) == 3,
          fmt::format("-a {}: collbench's time is always the slowest rank's per sample "
                      "(nccl-tests' -a 3); the per-rank times are in the file "
                      "(/rank_median_us, /samples) for other views",
                      o.rank_average.value_or(3)));

  require(o.check_iters >= 0,
          fmt::format("-c/--check must not be negative, got {}", o.check_iters));
  require(o.root >= 0, fmt::format("-r/--root must be a rank, 0 or more, got {}", o.root));
  config.root = o.root;
  config.check_iters = o.check_iters;
  const auto start = parse_sample_start(o.sync);
  require(start.has_value(),
          fmt::format("--sync: unknown value '{}' (window or barrier)", o.sync));
  config.latency_start = *start;
  if (!o.overlap_load.empty()) {
    config.overlap_load = parse_load_kind(o.overlap_load);
    require(config.overlap_load.has_value(),
            fmt::format("--overlap-load: unknown load '{}' (memory or gemm)", o.overlap_load));
    require(std::ranges::find(config.modes, Mode::latency) != config.modes.end(),
            "--overlap-load measures beside latency points: it needs --mode latency or both");
  }
  const auto keep = parse_keep_samples(o.keep_samples);
  require(keep.has_value(), fmt::format("--keep-samples: unknown value '{}' (all, capped or summary)",
                                        o.keep_samples));
  config.keep_samples = *keep;

  config.sampling = resolve_sampling(o.sampling);
  require(o.time_limit_s >= 0, "--time-limit must not be negative");
  if (o.time_limit_s > 0) config.time_limit_s = o.time_limit_s;

  config.output = resolve_output(o.output, config.backend);
  if (!o.output_json.empty()) {
    const std::filesystem::path json = o.output_json;
    // nccl-tests writes JSON only to a name ending in .json, and ignores another.
    require(json.extension() == ".json",
            fmt::format("-J/--output_file {}: nccl-tests' JSON goes to a .json file",
                        json.string()));
    require(o.output.force || !std::filesystem::exists(json),
            fmt::format("-J/--output_file {} exists (--force overwrites it)", json.string()));
    const std::filesystem::path folder = json.has_parent_path() ? json.parent_path() : ".";
    require(std::filesystem::is_directory(folder),
            fmt::format("-J/--output_file {}: no folder {}", json.string(), folder.string()));
    config.nccl_tests_json = json;
  }
  config.quiet = o.quiet;
  config.progress = o.progress;
  config.fit = !o.no_fit;
  for (const auto& size : o.crossover_sizes)
    config.crossover_sizes.push_back(
        static_cast<double>(size_option(size, "--crossover-sizes")));
  return config;
}

}  // namespace collbench
