#include "harness/cli/run_options.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

#include "harness/errors.h"

namespace collbench {
namespace {

// The message of the UsageError that resolve() throws for `options`, or a failure.
std::string usage_error(const RunOptions& options, const std::string& backend = "mpi") {
  try {
    resolve(options, backend);
    ADD_FAILURE() << "resolve() accepted the options";
  } catch (const UsageError& error) {
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "resolve() threw something other than UsageError: " << error.what();
  }
  return {};
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "'"

// Parses `args` (without the program name) through CLI11 the way `collbench run` does.
RunOptions parse_args(std::vector<std::string> args) {
  RunOptions options;
  CLI::App app{"run"};
  add_run_options(app, options);
  std::vector<char*> argv;
  std::string program = "collbench-run";
  argv.push_back(program.data());
  for (auto& arg : args) argv.push_back(arg.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return options;
}

std::vector<std::size_t> powers_of_two(std::size_t from, std::size_t to) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = from; s <= to; s *= 2) sizes.push_back(s);
  return sizes;
}

TEST(Resolve, Defaults) {
  const RunConfig config = resolve(RunOptions{}, "mpi");
  EXPECT_EQ(config.sweep.min_bytes, 8u);
  EXPECT_EQ(config.sweep.max_bytes, std::size_t{64} << 20);
  EXPECT_EQ(config.sweep.step_factor, 2.0);
  EXPECT_FALSE(config.sweep.step_bytes.has_value());
  EXPECT_EQ(config.sizes, powers_of_two(8, std::size_t{64} << 20));
  EXPECT_EQ(config.sizes.size(), 24u);
  EXPECT_EQ(config.collectives,
            (std::vector<CollectiveKind>{CollectiveKind::allreduce, CollectiveKind::allgather,
                                         CollectiveKind::reduce_scatter}));
  EXPECT_EQ(config.datatypes, (std::vector<DataType>{DataType::float32}));
  EXPECT_EQ(config.reduce_ops, (std::vector<ReduceOp>{ReduceOp::sum}));
  EXPECT_EQ(config.modes, (std::vector<Mode>{Mode::latency, Mode::bandwidth}));
  EXPECT_EQ(config.in_place, (std::vector<bool>{false}));
  EXPECT_EQ(config.backend, "mpi");
  EXPECT_EQ(config.placements, std::vector{Placement::world});
  EXPECT_TRUE(config.rank_counts.empty());
  EXPECT_EQ(config.sampling.warmup, 5);
  EXPECT_EQ(config.check_iters, 1);
  // The watchdog is on by default and grows with the slowest sample; latency starts in windows.
  EXPECT_EQ(config.sampling.watchdog.timeout_s, kDefaultWatchdogSeconds);
  EXPECT_TRUE(config.sampling.watchdog.grows_with_samples);
  EXPECT_EQ(config.latency_start, SampleStart::window);
  EXPECT_EQ(config.sampling.stopping.min_samples, 10u);
  EXPECT_DOUBLE_EQ(config.sampling.stopping.target_ci, 0.01);
  EXPECT_FALSE(config.sampling.stopping.fixed_samples.has_value());
  EXPECT_FALSE(config.time_limit_s.has_value());
  EXPECT_FALSE(config.output.force);

  EXPECT_TRUE(config.output.default_path);
  EXPECT_EQ(config.output.path.parent_path(), std::filesystem::path("results"));
  const std::string file = config.output.path.filename().string();
  ASSERT_TRUE(file.ends_with("-mpi.h5")) << file;
  // results/<UTC time>-mpi.h5 with a sortable "20261130T015148Z" stamp.
  const std::string stamp = file.substr(0, file.size() - std::string("-mpi.h5").size());
  ASSERT_EQ(stamp.size(), 16u) << stamp;
  for (std::size_t i = 0; i < stamp.size(); ++i) {
    if (i == 8) EXPECT_EQ(stamp[i], 'T') << stamp;
    else if (i == 15) EXPECT_EQ(stamp[i], 'Z') << stamp;
    else EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(stamp[i]))) << stamp;
  }
}

TEST(Resolve, PointsPerRowAreModesTimesTheRowsInPlaceVariants) {
  RunOptions options;
  const PlannedRow row;
  PlannedRow out_of_place_only;
  out_of_place_only.out_of_place_only = true;
  EXPECT_EQ(points_per_row(resolve(options, "mpi"), row), 2u);
  options.in_place = true;
  EXPECT_EQ(points_per_row(resolve(options, "mpi"), row), 4u);
  EXPECT_EQ(points_per_row(resolve(options, "mpi"), out_of_place_only), 2u);
  options.mode = "latency";
  EXPECT_EQ(points_per_row(resolve(options, "mpi"), row), 2u);
  EXPECT_EQ(points_per_row(resolve(options, "mpi"), out_of_place_only), 1u);
}

TEST(Resolve, DefaultOutNamesTheBackendInUse) {
  RunOptions options;
  options.backend = "nccl";
  const RunConfig config = resolve(options, "mpi");
  EXPECT_EQ(config.backend, "nccl");
  EXPECT_TRUE(config.output.path.filename().string().ends_with("-nccl.h5")) << config.output.path;
  EXPECT_EQ(resolve(RunOptions{}, "nccl").backend, "nccl");
}

TEST(Resolve, ExplicitOut) {
  RunOptions options;
  options.output.out = "/tmp/x/run.h5";
  const RunConfig config = resolve(options, "mpi");
  EXPECT_FALSE(config.output.default_path);
  EXPECT_EQ(config.output.path, std::filesystem::path("/tmp/x/run.h5"));
}

TEST(Resolve, SizesFromTheSweepOptions) {
  RunOptions options;
  options.sizes.min_bytes = "1K";
  options.sizes.max_bytes = "1M";
  options.sizes.step_factor = 4;
  EXPECT_EQ(resolve(options, "mpi").sizes,
            (std::vector<std::size_t>{1024, 4096, 16384, 65536, 262144, 1048576}));
  options.sizes.step_bytes = "256K";
  const RunConfig additive = resolve(options, "mpi");
  EXPECT_EQ(additive.sweep.step_bytes, std::size_t{256} << 10);
  EXPECT_EQ(additive.sizes,
            (std::vector<std::size_t>{1024, 1024 + 262144, 1024 + 2 * 262144, 1024 + 3 * 262144}));
}

TEST(Resolve, DatatypeListsAndAll) {
  RunOptions options;
  options.datatypes = "int32,double";
  EXPECT_EQ(resolve(options, "mpi").datatypes,
            (std::vector<DataType>{DataType::int32, DataType::float64}));
  options.datatypes = "float,float32,float";  // aliases of one type run once
  EXPECT_EQ(resolve(options, "mpi").datatypes, (std::vector<DataType>{DataType::float32}));
  options.datatypes = "all";
  const auto all = resolve(options, "mpi").datatypes;
  EXPECT_EQ(all, std::vector<DataType>(all_datatypes().begin(), all_datatypes().end()));
  EXPECT_EQ(all.size(), 12u);  // nccl-tests' list, half, bfloat16 and the fp8 types included
  EXPECT_TRUE(resolve(options, "mpi").every_datatype);
  options.datatypes = "half,bf16,f8e4m3,fp8_e5m2";
  EXPECT_EQ(resolve(options, "nccl").datatypes,
            (std::vector<DataType>{DataType::float16, DataType::bfloat16, DataType::float8_e4m3,
                                   DataType::float8_e5m2}));
  EXPECT_FALSE(resolve(options, "nccl").every_datatype);
}

TEST(Resolve, OpListsAndAll) {
  RunOptions options;
  options.reduce_ops = "max,min";
  EXPECT_EQ(resolve(options, "mpi").reduce_ops, (std::vector<ReduceOp>{ReduceOp::max, ReduceOp::min}));
  options.reduce_ops = "all";
  EXPECT_EQ(resolve(options, "mpi").reduce_ops,
            (std::vector<ReduceOp>{ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                                   ReduceOp::avg}));
  EXPECT_TRUE(resolve(options, "mpi").every_reduce_op);
}

TEST(Resolve, NcclTuningsAreTheLibrarysChoiceThenEveryCombination) {
  RunOptions options;
  options.backend = "nccl";
  EXPECT_EQ(resolve(options, "mpi").tunings, (std::vector<Tuning>{Tuning{}}));
  options.nccl_algorithms = "ring,Tree";
  options.nccl_protocols = "ll128";
  EXPECT_EQ(resolve(options, "mpi").tunings,
            (std::vector<Tuning>{{"", ""}, {"", "LL128"}, {"Ring", ""}, {"Ring", "LL128"},
                                 {"Tree", ""}, {"Tree", "LL128"}}));
  options.nccl_protocols = "LL256";
  EXPECT_THROW(resolve(options, "mpi"), UsageError);
  options.nccl_protocols = "";
  options.backend = "mpi";
  EXPECT_THROW(resolve(options, "mpi"), UsageError);
}

TEST(Resolve, LocalRanksNeedTheNcclBackend) {
  RunOptions options;
  options.local_ranks = 4;
  options.virtual_nodes = true;
  EXPECT_THROW(resolve(options, "mpi"), UsageError);  // mpi starts through mpirun
  const RunConfig config = resolve(options, "nccl");
  EXPECT_EQ(config.local_ranks, 4);
  EXPECT_TRUE(config.virtual_nodes);
  options.local_ranks = 0;
  EXPECT_THROW(resolve(options, "nccl"), UsageError);  // --virtual-nodes without --np
  options.local_ranks = -1;
  options.virtual_nodes = false;
  EXPECT_THROW(resolve(options, "nccl"), UsageError);
}

TEST(Resolve, CollectiveListsAndAll) {
  RunOptions options;
  options.collectives = "reduce_scatter,allreduce";
  EXPECT_EQ(resolve(options, "mpi").collectives,
            (std::vector<CollectiveKind>{CollectiveKind::reduce_scatter, CollectiveKind::allreduce}));
  options.collectives = "allgather";
  EXPECT_EQ(resolve(options, "mpi").collectives,
            (std::vector<CollectiveKind>{CollectiveKind::allgather}));
  options.collectives = "all";  // the library's six and the composed allreduce
  EXPECT_EQ(resolve(options, "mpi").collectives.size(), all_collectives().size());
  options.collectives = "alltoall,bcast,reduce";
  EXPECT_EQ(resolve(options, "mpi").collectives,
            (std::vector<CollectiveKind>{CollectiveKind::alltoall, CollectiveKind::broadcast,
                                         CollectiveKind::reduce}));
  EXPECT_EQ(RunOptions{}.collectives, "allreduce,allgather,reduce_scatter");
}

TEST(Resolve, RootIsARank) {
  RunOptions options;
  EXPECT_EQ(resolve(options, "mpi").root, 0);
  options.root = 3;
  EXPECT_EQ(resolve(options, "mpi").root, 3);
}

TEST(Resolve, ModesAndInPlace) {
  RunOptions options;
  options.mode = "latency";
  EXPECT_EQ(resolve(options, "mpi").modes, (std::vector<Mode>{Mode::latency}));
  options.mode = "bandwidth";
  EXPECT_EQ(resolve(options, "mpi").modes, (std::vector<Mode>{Mode::bandwidth}));
  options.in_place = true;
  EXPECT_EQ(resolve(options, "mpi").in_place, (std::vector<bool>{false, true}));
}

TEST(Resolve, StoppingKnobs) {
  RunOptions options;
  options.sampling.iters = 7;
  options.sampling.min_samples = 3;
  options.sampling.min_time_s = 0.5;
  options.sampling.target_ci = 0.05;
  options.sampling.max_time_s = 2.5;
  options.time_limit_s = 3600;
  const RunConfig config = resolve(options, "mpi");
  EXPECT_EQ(config.sampling.stopping.fixed_samples, std::size_t{7});
  EXPECT_EQ(config.sampling.stopping.min_samples, 3u);
  EXPECT_DOUBLE_EQ(config.sampling.stopping.min_time_s, 0.5);
  EXPECT_DOUBLE_EQ(config.sampling.stopping.target_ci, 0.05);
  EXPECT_DOUBLE_EQ(config.sampling.stopping.max_time_s, 2.5);
  EXPECT_EQ(config.time_limit_s, 3600.0);
}

TEST(Resolve, CudaGraphWithTheNcclBackendIsAccepted) {
  RunOptions options;
  options.cuda_graph_launches = 1;
  options.backend = "nccl";
  EXPECT_NO_THROW(resolve(options, "mpi"));
  options.backend.clear();
  EXPECT_NO_THROW(resolve(options, "nccl"));
}

// Each bad value: UsageError whose message names the option.
TEST(ResolveErrors, BadMinBytes) {
  RunOptions options;
  options.sizes.min_bytes = "1Q";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "-b/--minbytes");
  EXPECT_CONTAINS(message, "1Q");
}

TEST(ResolveErrors, BadMaxBytes) {
  RunOptions options;
  options.sizes.max_bytes = "lots";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "-e/--maxbytes");
  EXPECT_CONTAINS(message, "lots");
}

TEST(ResolveErrors, MaxBelowMin) {
  RunOptions options;
  options.sizes.min_bytes = "1M";
  options.sizes.max_bytes = "1K";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "-e/--maxbytes");
  EXPECT_CONTAINS(message, "-b/--minbytes");
}

TEST(ResolveErrors, ZeroMinBytes) {
  RunOptions options;
  options.sizes.min_bytes = "0";
  EXPECT_CONTAINS(usage_error(options), "-b/--minbytes");
}

TEST(ResolveErrors, StepFactorNotAboveOne) {
  for (double factor : {1.0, 0.0, -1.0}) {
    SCOPED_TRACE(factor);
    RunOptions options;
    options.sizes.step_factor = factor;
    EXPECT_CONTAINS(usage_error(options), "-f/--stepfactor");
  }
}

TEST(ResolveErrors, ZeroStepBytes) {
  RunOptions options;
  options.sizes.step_bytes = "0";
  EXPECT_CONTAINS(usage_error(options), "-i/--stepbytes");
  options.sizes.step_bytes = "1Q";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "-i/--stepbytes");
  EXPECT_CONTAINS(message, "1Q");
}

TEST(ResolveErrors, UnknownDatatype) {
  RunOptions options;
  options.datatypes = "float17";
  std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "-d/--datatype");
  EXPECT_CONTAINS(message, "float17");
  options.datatypes = "float,float17";
  message = usage_error(options);
  EXPECT_CONTAINS(message, "-d/--datatype");
  EXPECT_CONTAINS(message, "float17");
  options.datatypes = "float,";
  EXPECT_CONTAINS(usage_error(options), "-d/--datatype");
}

TEST(ResolveErrors, UnknownOp) {
  RunOptions options;
  options.reduce_ops = "mean";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "-o/--op");
  EXPECT_CONTAINS(message, "mean");
}

TEST(ResolveErrors, UnknownCollective) {
  RunOptions options;
  options.collectives = "allreduce,no_such_collective";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "--ops");
  EXPECT_CONTAINS(message, "no_such_collective");
}

TEST(ResolveErrors, NegativeRoot) {
  RunOptions options;
  options.root = -1;
  EXPECT_CONTAINS(usage_error(options), "-r/--root");
}

TEST(ResolveErrors, UnknownMode) {
  RunOptions options;
  options.mode = "fast";
  const std::string message = usage_error(options);
  EXPECT_CONTAINS(message, "--mode");
  EXPECT_CONTAINS(message, "fast");
}

TEST(ResolveErrors, ZeroIters) {
  RunOptions options;
  options.sampling.iters = 0;
  EXPECT_CONTAINS(usage_error(options), "-n/--iters");
}

TEST(ResolveErrors, TargetCiOutOfRange) {
  for (double ci : {0.0, -0.1, 1.0}) {
    SCOPED_TRACE(ci);
    RunOptions options;
    options.sampling.target_ci = ci;
    EXPECT_CONTAINS(usage_error(options), "--target-ci");
  }
}

TEST(ResolveErrors, ZeroMaxTime) {
  RunOptions options;
  options.sampling.max_time_s = 0;
  EXPECT_CONTAINS(usage_error(options), "--max-time");
}

TEST(RunOptionsCli, CudaGraphLaunchesAreNcclTestsCounts) {
  EXPECT_EQ(resolve(parse_args({"-G", "4", "--backend", "nccl"}), "nccl").cuda_graph_launches, 4);
  RunOptions options;
  options.backend = "nccl";
  options.cuda_graph_launches = -1;
  EXPECT_CONTAINS(usage_error(options, "nccl"), "-G/--cudagraph must not be negative");
}

TEST(RunOptionsCli, BufferRegistrationTakesNcclTestsNumbers) {
  for (const auto& [flag, registration] :
       {std::pair{"0", BufferRegistration::none}, std::pair{"1", BufferRegistration::local},
        std::pair{"2", BufferRegistration::symmetric}}) {
    const RunOptions options = parse_args({"-R", flag, "--backend", "nccl"});
    EXPECT_EQ(resolve(options, "nccl").buffer_registration, registration) << flag;
  }
  EXPECT_EQ(parse_args({"--local_register", "2"}).local_register, 2);
}

TEST(ResolveErrors, BufferRegistrationOutOfRangeOrWithoutNccl) {
  RunOptions options;
  options.backend = "nccl";
  options.local_register = 3;
  EXPECT_CONTAINS(usage_error(options, "nccl"), "-R/--local_register: 3 is none of 0");
  options.local_register = 1;
  options.backend = "mpi";
  EXPECT_CONTAINS(usage_error(options, "nccl"), "-R/--local_register needs the nccl backend");
}

TEST(ResolveErrors, SymmetricWindowsWithPinsWouldNotHold) {
  RunOptions options;
  options.backend = "nccl";
  options.local_register = 2;
  options.nccl_algorithms = "Ring";
  EXPECT_CONTAINS(usage_error(options, "nccl"), "-R 2 with --nccl-algo/--nccl-proto");
  options.local_register = 1;
  EXPECT_EQ(resolve(options, "nccl").tunings.size(), 2u);
}

TEST(ResolveErrors, CudaGraphWithMpi) {
  RunOptions options;
  options.cuda_graph_launches = 1;
  EXPECT_CONTAINS(usage_error(options, "mpi"), "-G/--cudagraph");
  options.backend = "mpi";
  EXPECT_CONTAINS(usage_error(options, "nccl"), "-G/--cudagraph");
}

// Pins and --np are what the nccl backend can do (capabilities_of), not the mpi one.
TEST(ResolveErrors, PinsAndLocalRanksNeedTheNcclBackend) {
  RunOptions pinned;
  pinned.backend = "mpi";
  pinned.nccl_algorithms = "Ring,Tree";
  EXPECT_CONTAINS(usage_error(pinned, "nccl"), "--nccl-algo/--nccl-proto need the nccl backend");
  pinned.backend = "nccl";
  EXPECT_EQ(resolve(pinned, "nccl").tunings.size(), 3u);  // the library's choice and each pin
  RunOptions local;
  local.backend = "mpi";
  local.local_ranks = 2;
  EXPECT_CONTAINS(usage_error(local, "nccl"),
                  "--np: the mpi backend starts its ranks through mpirun or srun");
}

TEST(Resolve, PlacementsAndRankCounts) {
  RunOptions options;
  options.placement = "all";
  EXPECT_EQ(resolve(options, "mpi").placements,
            (std::vector{Placement::world, Placement::intra, Placement::inter}));
  options.placement = "inter,intra,inter";
  EXPECT_EQ(resolve(options, "mpi").placements,
            (std::vector{Placement::inter, Placement::intra}));
  options.placement = "";
  options.rank_counts = "4,2,3,2";
  options.spread = "spread";
  const RunConfig subsets = resolve(options, "mpi");
  EXPECT_TRUE(subsets.placements.empty());  // --ranks alone: only the subsets
  EXPECT_EQ(subsets.rank_counts, (std::vector<int>{4, 2, 3}));
  EXPECT_EQ(subsets.subset_placement, Placement::spread);
  options.rank_counts = "pow2";
  EXPECT_TRUE(resolve(options, "mpi").rank_counts_pow2);
}

TEST(ResolveErrors, BadPlacementsAndRankCounts) {
  RunOptions options;
  options.placement = "rack";
  EXPECT_CONTAINS(usage_error(options), "--placement: unknown value 'rack'");
  options.placement = "packed";  // a subset: --ranks with --spread packed
  EXPECT_CONTAINS(usage_error(options), "--placement: unknown value 'packed'");
  options.placement = "";
  options.spread = "world";
  EXPECT_CONTAINS(usage_error(options), "--spread: unknown value 'world'");
  options.spread = "packed";
  options.placement = "world";
  for (const char* bad : {"1", "two", "2,", "3x"}) {
    options.rank_counts = bad;
    EXPECT_CONTAINS(usage_error(options), "--ranks");
  }
  options.rank_counts = "2";
  options.spread = "scattered";
  EXPECT_CONTAINS(usage_error(options), "--spread");
}

TEST(ResolveErrors, NegativeCounts) {
  RunOptions options;
  options.sampling.warmup = -1;
  EXPECT_CONTAINS(usage_error(options), "-w/--warmup_iters");
  options = {};
  options.check_iters = -1;
  EXPECT_CONTAINS(usage_error(options), "-c/--check");
  options = {};
  options.sampling.timeout_s = -1;
  EXPECT_CONTAINS(usage_error(options), "-T/--timeout");
  options = {};
  options.sampling.min_samples = 0;
  EXPECT_CONTAINS(usage_error(options), "--min-samples");
  options = {};
  options.time_limit_s = -1;
  EXPECT_CONTAINS(usage_error(options), "--time-limit");
}

TEST(RunOptionsCli, ShortFlagsMapToTheirOptions) {
  const RunOptions options = parse_args({"-b", "1K", "-e", "1M", "-f", "4", "-n", "20", "-w", "3",
                                         "-c", "0", "-d", "int32,double", "-o", "max"});
  EXPECT_EQ(options.sizes.min_bytes, "1K");
  EXPECT_EQ(options.sizes.max_bytes, "1M");
  EXPECT_EQ(options.sizes.step_factor, 4.0);
  ASSERT_TRUE(options.sampling.iters.has_value());
  EXPECT_EQ(*options.sampling.iters, 20);
  EXPECT_EQ(options.sampling.warmup, 3);
  EXPECT_EQ(options.check_iters, 0);
  EXPECT_EQ(options.datatypes, "int32,double");
  EXPECT_EQ(options.reduce_ops, "max");

  const RunConfig config = resolve(options, "mpi");
  EXPECT_EQ(config.sizes, (std::vector<std::size_t>{1024, 4096, 16384, 65536, 262144, 1048576}));
  EXPECT_EQ(config.sampling.stopping.fixed_samples, std::size_t{20});
  EXPECT_EQ(config.sampling.warmup, 3);
  EXPECT_EQ(config.check_iters, 0);
  EXPECT_EQ(config.datatypes, (std::vector<DataType>{DataType::int32, DataType::float64}));
  EXPECT_EQ(config.reduce_ops, (std::vector<ReduceOp>{ReduceOp::max}));
}

TEST(RunOptionsCli, LongFlagsAndOwnOptions) {
  const RunOptions options = parse_args(
      {"--minbytes", "64", "--maxbytes", "4K", "--stepbytes", "1K", "--iters", "5",
       "--warmup_iters", "0", "--check", "2", "--datatype", "all", "--op", "all", "--ops",
       "allgather", "--mode", "latency", "--inplace", "--out", "r.h5", "-G", "1", "-T", "30",
       "--backend", "nccl", "--min-samples", "4", "--target-ci", "0.02", "--max-time", "3",
       "--time-limit", "60", "--force", "--quiet"});
  EXPECT_EQ(options.sizes.min_bytes, "64");
  EXPECT_EQ(options.sizes.max_bytes, "4K");
  ASSERT_TRUE(options.sizes.step_bytes.has_value());
  EXPECT_EQ(*options.sizes.step_bytes, "1K");
  EXPECT_EQ(options.sampling.iters, 5);
  EXPECT_EQ(options.sampling.warmup, 0);
  EXPECT_EQ(options.check_iters, 2);
  EXPECT_EQ(options.datatypes, "all");
  EXPECT_EQ(options.reduce_ops, "all");
  EXPECT_EQ(options.collectives, "allgather");
  EXPECT_EQ(options.mode, "latency");
  EXPECT_TRUE(options.in_place);
  EXPECT_EQ(options.output.out, "r.h5");
  EXPECT_EQ(options.cuda_graph_launches, 1);
  EXPECT_EQ(options.sampling.timeout_s, 30.0);
  EXPECT_EQ(resolve(options, "mpi").sampling.watchdog.timeout_s, 30.0);
  EXPECT_FALSE(resolve(options, "mpi").sampling.watchdog.grows_with_samples);
  EXPECT_EQ(options.backend, "nccl");
  EXPECT_EQ(options.sampling.min_samples, 4);
  EXPECT_DOUBLE_EQ(options.sampling.target_ci, 0.02);
  EXPECT_EQ(options.sampling.max_time_s, 3.0);
  EXPECT_EQ(options.time_limit_s, 60.0);
  EXPECT_TRUE(options.output.force);
  EXPECT_TRUE(options.quiet);

  const RunConfig config = resolve(options, "mpi");
  EXPECT_EQ(config.sizes, (std::vector<std::size_t>{64, 64 + 1024, 64 + 2048, 64 + 3072}));
  EXPECT_EQ(config.datatypes.size(), 12u);
  EXPECT_EQ(config.reduce_ops.size(), 5u);
  EXPECT_EQ(config.collectives, (std::vector<CollectiveKind>{CollectiveKind::allgather}));
  EXPECT_EQ(config.modes, (std::vector<Mode>{Mode::latency}));
  EXPECT_EQ(config.in_place, (std::vector<bool>{false, true}));
  EXPECT_EQ(config.output.path, std::filesystem::path("r.h5"));
  EXPECT_FALSE(config.output.default_path);
}

TEST(RunOptionsCli, UnparsedDefaultsEqualTheStructDefaults) {
  const RunOptions parsed = parse_args({});
  const RunOptions plain;
  EXPECT_EQ(parsed.sizes.min_bytes, plain.sizes.min_bytes);
  EXPECT_EQ(parsed.sizes.max_bytes, plain.sizes.max_bytes);
  EXPECT_EQ(parsed.sizes.step_factor, plain.sizes.step_factor);
  EXPECT_FALSE(parsed.sampling.iters.has_value());
  EXPECT_FALSE(parsed.sizes.step_bytes.has_value());
  EXPECT_EQ(parsed.collectives, plain.collectives);
}

TEST(RunOptionsCli, NonNumericFactorIsRejectedByTheParser) {
  EXPECT_THROW(parse_args({"-f", "two"}), CLI::ParseError);
  EXPECT_THROW(parse_args({"-n", "many"}), CLI::ParseError);
  EXPECT_THROW(parse_args({"--no-such-flag"}), CLI::ParseError);
}

TEST(RunOptionsCli, SyncChoosesHowLatencySamplesStart) {
  EXPECT_EQ(resolve(parse_args({"--sync", "barrier"}), "mpi").latency_start, SampleStart::barrier);
  EXPECT_EQ(resolve(parse_args({"--sync", "window"}), "mpi").latency_start, SampleStart::window);
  RunOptions options;
  options.sync = "skew";
  EXPECT_CONTAINS(usage_error(options), "--sync: unknown value 'skew'");
}

}  // namespace
}  // namespace collbench
