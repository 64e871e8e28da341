#include "harness/cli/links_command.h"

#include <cstdio>
#include <memory>
#include <span>

#include <fmt/format.h>

#include "backends/registry.h"
#include "harness/cli/command_guard.h"
#include "harness/cli/job_file.h"
#include "harness/cli/job_start.h"
#include "harness/cli/option_values.h"
#include "harness/errors.h"
#include "harness/links/link_fits.h"
#include "harness/links/link_matrix.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/run_config.h"
#include "harness/plan/sizes.h"
#include "harness/provenance/clock.h"
#include "harness/provenance/provenance.h"
#include "harness/report/link_report.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"

namespace collbench {
namespace {

constexpr const char* kBootstrap = "mpi";  // the world that swaps addresses and ends rounds

struct LinksConfig {
  LinkPlan plan;
  LinkSchedule schedule;
  double shortfall = 0;
  MessageMemory memory = MessageMemory::host;
  OutputFile output;
  bool quiet = false;
};

LinksConfig resolve(const LinksOptions& o) {
  LinksConfig config;
  config.plan.sizes = resolve_sizes(o.sizes).sizes;
  if (o.between == "ranks") config.schedule.ends = LinkEnds::ranks;
  else require(o.between == "hosts", fmt::format("--between: unknown value '{}' (expected hosts or ranks)", o.between));
  config.plan.modes =
      parse_list<LinkMode>(o.modes, "--modes", parse_link_mode, std::span(kLinkModes));
  require(o.pairs_at_once >= 0, "--pairs-at-once must not be negative");
  config.schedule.pairs_at_once = o.pairs_at_once;
  config.plan.sampling = resolve_sampling(o.sampling);
  require(o.shortfall > 0 && o.shortfall < 1, "--shortfall must be a fraction between 0 and 1");
  config.shortfall = o.shortfall;
  const auto memory = parse_message_memory(o.memory);
  require(memory.has_value(),
          fmt::format("--memory: unknown value '{}' (expected host or cuda)", o.memory));
  config.memory = *memory;
  config.output = resolve_output(o.output, "links");
  config.quiet = o.quiet;
  return config;
}

int measure(Backend& bootstrap, PointToPoint& links, const LinksConfig& config,
            const std::vector<std::string>& argv) {
  const std::string start_utc = utc_now_iso8601();
  Communicator& world = bootstrap.world();
  const JobTopology topology = [&] {
    CommunicationWait wait("discovering the topology");
    return discover_topology(world);
  }();
  JobFile file = open_job_file(world, "links", config.output, KeepSamples::all);
  if (file.exit_code != kExitOk) return file.exit_code;
  std::unique_ptr<ResultWriter>& writer = file.writer;
  const bool root = world.rank() == kCoordinatorRank;
  if (root) {
    Provenance provenance = job_provenance(argv, "ucx", links.version(), topology, start_utc);
    provenance.text.merge(links.provenance());
    provenance.text["bootstrap"] = fmt::format("{} {}", kBootstrap, bootstrap.version());
    provenance.text["between"] = config.schedule.ends == LinkEnds::ranks ? "ranks" : "hosts";
    provenance.text["memory"] = name(config.memory);
    writer->write_provenance(provenance);
    writer->write_topology(topology.ranks);
    const auto participants = link_participants(topology, config.schedule.ends);
    if (!config.quiet)
      fmt::print("# collbench links: {} {}, {} links, UCX {}\n{}", participants.size(),
                 config.schedule.ends == LinkEnds::ranks ? "ranks" : "hosts",
                 participants.size() * (participants.size() - 1) / 2, links.version(),
                 link_points_header());
  }
  std::vector<LinkPoint> measured;
  measure_link_matrix(world, links, topology, config.schedule, config.plan,
                      [&](std::vector<LinkPoint> points) {
                        for (LinkPoint& point : points) {
                          {
                            FileWriteSection section;
                            writer->append_link_point(point);
                          }
                          if (!config.quiet) fmt::print("{}", link_point_row(point));
                          point.samples_seconds.clear();
                          measured.push_back(std::move(point));
                        }
                        std::fflush(stdout);
                      });
  if (!root) return kExitOk;
  const LinkAnalysis analysis = analyse_links(measured, config.shortfall);
  {
    FileWriteSection section;
    writer->write_link_analysis(analysis, config.shortfall);
    writer->finish(utc_now_iso8601());
  }
  fmt::print("{}", link_summary(analysis, config.shortfall));
  return kExitOk;
}

}  // namespace

void add_links_options(CLI::App& command, LinksOptions& o) {
  add_size_options(command, o.sizes, SizeSteps::multiplicative);
  command.add_option("--between", o.between,
                     "hosts (the lowest rank of each host) or ranks (every pair of ranks)")
      ->capture_default_str();
  command.add_option("--pairs-at-once", o.pairs_at_once,
                     "pairs of a round measured at once (0: all; 1 where hosts share cores, as "
                     "on one machine's virtual cluster)")
      ->capture_default_str();
  command.add_option("--modes", o.modes,
                     "latency (half a ping-pong), bandwidth (a window each way in turn), "
                     "bidirectional (a window both ways at once)")
      ->capture_default_str();
  add_sampling_options(command, o.sampling,
                       {.warmup = "untimed samples per point",
                        .rounds = "passes over the whole matrix, each point's samples pooled "
                                  "over them"});
  command.add_option("--shortfall", o.shortfall,
                     "name a link or host slow when its fitted bandwidth is more than this "
                     "fraction below its peers'")
      ->capture_default_str();
  command.add_option("--memory", o.memory,
                     "where the messages live: host, or cuda (each rank's first visible GPU; "
                     "needs a UCX built with CUDA)")
      ->capture_default_str();
  add_output_options(command, o.output, "result file", "links");
  command.add_flag("-q,--quiet", o.quiet, "print only the summary, not a row per point");
}

int links_command(const LinksOptions& options, const std::vector<std::string>& argv) {
  const JobStart job("links");
  const LinksConfig config = resolve(options);
  job.watch(config.plan.sampling.watchdog);
  std::unique_ptr<Backend> bootstrap;
  std::unique_ptr<PointToPoint> links;
  const int started = job.start_libraries(
      "", "MPI and UCX",
      [&] {
        bootstrap = start_backend(kBootstrap, BackendOptions{});
        links = start_point_to_point(config.memory);
      },
      [&] { bootstrap.reset(); });  // MPI ends once, with the bootstrap backend
  if (started != kExitOk) return started;
  if (!job.launched())
    return job.refuse_lone_process(
        "One process has no link to measure. Start it with mpirun -np N or srun, one rank per "
        "host");
  try {
    return measure(*bootstrap, *links, config, argv);
  } catch (const std::exception& error) {
    abort_job("links", *bootstrap, error,
              fmt::format("every finished link is in {}", config.output.path.string()));
  }
}

}  // namespace collbench
