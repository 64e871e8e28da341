#include "sweep_passes.h"

#include <algorithm>
#include <array>
#include <memory>

#include <fmt/format.h>

#include "backends/hierarchical_communicator.h"
#include "backends/tuning.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/point_rounds.h"
#include "harness/measure/row_runner.h"

namespace collbench {
namespace {

// The rounds' orders are the same in every run: where a point falls in the sweep is then no
// difference between two runs that `compare` would have to tell from a change.
constexpr std::uint64_t kRoundOrderSeed = 0x636f6c6c;

std::string describe(const Tuning& tuning) {
  return fmt::format("NCCL algorithm {}, protocol {}", or_auto(tuning.algorithm),
                     or_auto(tuning.protocol));
}

void add_note(std::vector<std::string>& notes, std::string note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
}

std::vector<GroupLayout> layouts_for(const RunConfig& config, const std::vector<RankPlace>& places) {
  std::vector<GroupLayout> layouts;
  for (Placement placement : config.placements) layouts.push_back(job_layout(places, placement));
  const int world_size = static_cast<int>(places.size());
  for (int size : config.rank_counts_pow2 ? powers_of_two_up_to(world_size) : config.rank_counts)
    layouts.push_back(subset_layout(places, size, config.subset_placement));
  return layouts;
}

// The plan's rows the backend runs with this tuning, out of place only where it runs no
// in-place variant; a note for each collective left out or run out of place only.
std::vector<PlannedRow> rows_for(const SweepPlan& plan, const Backend& backend,
                                 const Tuning& tuning, bool in_place,
                                 std::vector<std::string>& notes) {
  std::vector<PlannedRow> rows;
  for (PlannedRow row : plan.rows) {
    const std::string why = backend.why_unsupported(row.collective, row.datatype, row.op, tuning);
    if (why.empty()) {
      const std::string not_in_place = in_place ? backend.why_not_in_place(row.collective) : "";
      row.out_of_place_only = !not_in_place.empty();
      if (row.out_of_place_only)
        add_note(notes, fmt::format("{}; {} in place skipped", not_in_place, name(row.collective)));
      rows.push_back(row);
    } else if (tuning == Tuning{})
      add_note(notes, fmt::format("{} runs no {}; skipped", backend.name(), name(row.collective)));
    else
      add_note(notes, fmt::format("{}: {}; {} {}{} skipped", describe(tuning), why,
                                  name(row.collective), name(row.datatype),
                                  uses_reduce_op(row.collective)
                                      ? fmt::format(" {}", name(row.op))
                                      : std::string()));
  }
  return rows;
}

// Each rank's median and mean over its own samples of the point (every one, kept or not), to
// rank 0: 2p values once per point, where the samples themselves would be p times the point's
// sample count. Rank 0 gets the ranks' medians and OSU's figure from their means.
void collect_rank_figures(Communicator& world, PointResult& point) {
  std::vector<std::array<double, 2>> figures;
  {
    CommunicationWait wait("gathering the ranks' medians and means");
    figures = world.gather_values(std::array{own_median(point), own_mean(point)}, kCoordinatorRank);
  }
  if (figures.empty()) return;
  point.rank_median_seconds.clear();
  std::vector<double> means;
  for (int rank : point.samples.world_ranks) {
    point.rank_median_seconds.push_back(figures[rank][0]);
    means.push_back(figures[rank][1]);
  }
  point.osu_mean_s = osu_mean(point, means);
}

MeasureSettings measure_settings(const RunConfig& config, const SweepPass& pass,
                                 const LoadSite& site, double timer_step_s) {
  MeasureSettings settings;
  settings.backend = config.backend;
  settings.placement = pass.layout.placement;
  settings.tuning = pass.tuning;
  settings.modes = config.modes;
  settings.in_place = config.in_place;
  settings.warmup = config.sampling.warmup;
  settings.check_iters = config.check_iters;
  settings.stopping = round_share(config.sampling.stopping, config.sampling.rounds);
  settings.latency_start = config.latency_start;
  settings.rows_per_round = rows_per_round(config.keep_samples, config.sampling.rounds);
  settings.overlap_load = config.overlap_load;
  settings.load_site = site;
  settings.timer_step_s = timer_step_s;
  settings.launches_per_bandwidth_sample = std::max(config.cuda_graph_launches, 1);
  return settings;
}

std::vector<int> members_of(const GroupLayout& layout) {
  std::vector<int> members;
  for (const auto& group : layout.groups) members.insert(members.end(), group.begin(), group.end());
  std::sort(members.begin(), members.end());
  return members;
}

// The pass's rows in curves: consecutive rows of one collective, datatype and op (its sizes).
std::vector<std::pair<std::size_t, std::size_t>> curve_blocks(const std::vector<PlannedRow>& rows) {
  std::vector<std::pair<std::size_t, std::size_t>> blocks;  // [begin, end)
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool same_curve = !blocks.empty() && rows[i].collective == rows[i - 1].collective &&
                            rows[i].datatype == rows[i - 1].datatype && rows[i].op == rows[i - 1].op;
    if (same_curve)
      blocks.back().second = i + 1;
    else
      blocks.emplace_back(i, i + 1);
  }
  return blocks;
}

// One pass's rows, curve by curve: each curve's rows round after round, the order reshuffled
// per round, so that every point's rounds are apart by the rest of its curve, and a run that
// is killed loses one curve at most. A row is done when its last round is: then its points get
// their statistics and go to `row_done`. False when --time-limit ended the pass; the curve's
// rows begun by then are done with the rounds they have.
bool sweep(RowRunner& runner, Communicator& world, const SweepPass& pass, const RunConfig& config,
           std::uint64_t order_seed, const PlausibilityBound& bound, const TimeLeft& time_left,
           const RowDone& row_done, const CurveDone& curve_done, std::vector<std::string>& notes) {
  for (const auto& [begin, end] : curve_blocks(pass.rows)) {
    const std::uint64_t curve_seed = order_seed ^ (std::uint64_t{begin} << 32);
    std::vector<std::vector<PointResult>> measured(end - begin);
    const auto finish_row = [&](std::size_t i) {
      if (measured[i].empty()) return;
      for (PointResult& point : measured[i]) collect_rank_figures(world, point);
      if (world.rank() == kCoordinatorRank)
        for (PointResult& point : measured[i]) {
          finish_point(point, config.sampling.stopping.target_ci);
          point.implausible = judge_plausibility(point, bound);
        }
      row_done(measured[i], pass.rows[begin + i]);
      measured[i].clear();
    };
    for (int round = 0; round < config.sampling.rounds; ++round) {
      for (std::size_t i : round_order(end - begin, round, config.sampling.rounds, curve_seed)) {
        const std::optional<double> left = time_left();
        int go = !left || *left > 0;  // rank 0's clock decides for everyone
        {
          CommunicationWait wait("rank 0's go-ahead for the next row");
          world.broadcast_value(go, kCoordinatorRank);
        }
        auto points = go ? runner.measure(pass.rows[begin + i], left, measured[i],
                                          round + 1 == config.sampling.rounds)
                         : std::vector<PointResult>{};
        const std::size_t measured_now = points.size();
        for (std::size_t j = 0; j < measured_now; ++j) {
          if (j < measured[i].size())
            add_round(measured[i][j], std::move(points[j]));
          else
            measured[i].push_back(std::move(points[j]));
        }
        if (round + 1 == config.sampling.rounds) finish_row(i);
        if (measured_now < points_per_row(config, pass.rows[begin + i])) {
          for (std::size_t k = 0; k < measured.size(); ++k) finish_row(k);
          notes.push_back(fmt::format("--time-limit of {} s reached; the sweep stopped early",
                                      *config.time_limit_s));
          return false;
        }
      }
    }
    curve_done(end - begin);
  }
  return true;
}

}  // namespace

SweepRequest sweep_request(const RunConfig& config) {
  return {config.sizes, config.collectives, config.datatypes, config.reduce_ops,
          config.check_iters > 0, config.root};
}

std::vector<SweepPass> plan_passes(const RunConfig& config, const Backend& backend,
                                   const std::vector<RankPlace>& places,
                                   std::vector<std::string>& notes) {
  std::vector<SweepPass> passes;
  const SweepRequest request = sweep_request(config);
  for (GroupLayout& layout : layouts_for(config, places)) {
    if (!layout.skipped.empty()) {
      notes.push_back(fmt::format("placement {} skipped: {}", name(layout.placement), layout.skipped));
      continue;
    }
    SweepPlan plan = plan_sweep(request, layout.group_size);
    for (auto& note : plan.notes) add_note(notes, std::move(note));
    plan.notes.clear();
    for (const Tuning& tuning : config.tunings) {
      auto rows = rows_for(plan, backend, tuning, config.in_place.size() > 1, notes);
      if (!rows.empty()) passes.push_back({layout, tuning, plan, std::move(rows)});
    }
  }
  return passes;
}

// The group wrapped so that it composes the hierarchical allreduce, when the pass has one;
// nullptr, and the rows without it, where the group's nodes hold different numbers of its ranks.
// Every rank learns which, ranks outside the group too.
std::unique_ptr<HierarchicalCommunicator> compose_hierarchy(Communicator& world,
                                                            Communicator* group,
                                                            SweepPass& pass,
                                                            std::vector<std::string>& notes) {
  const auto composed = [](const PlannedRow& row) {
    return describe(row.collective).composed_across_nodes;
  };
  if (std::ranges::none_of(pass.rows, composed)) return nullptr;
  std::unique_ptr<HierarchicalCommunicator> hierarchy;
  std::string refusal;
  if (group) try {
      CommunicationWait wait("creating the hierarchical allreduce's node and rail communicators");
      hierarchy = std::make_unique<HierarchicalCommunicator>(*group);
    } catch (const std::invalid_argument& error) {
      refusal = error.what();
    }
  CommunicationWait wait("agreeing whether the hierarchical allreduce runs");
  if (world.sum_over_ranks(!refusal.empty()) == 0) return hierarchy;
  add_note(notes, fmt::format("allreduce_hier over {} groups of {} ranks: {}; skipped",
                              name(pass.layout.placement), pass.layout.group_size,
                              refusal.empty() ? "refused on another rank" : refusal));
  std::erase_if(pass.rows, composed);
  return nullptr;
}

void run_passes(Backend& backend, const std::vector<SweepPass>& passes, const RunConfig& config,
                const LoadSite& site, double timer_step_s, const PlausibilityBound& bound,
                RunBuffers& buffers,
                const TimeLeft& time_left, const RowDone& row_done, const CurveDone& curve_done,
                std::vector<std::string>& notes) {
  // The control plane (barriers, sample times, decisions) always runs on the untuned world: a
  // pinned algorithm may lack what it needs (NCCL's Tree has no broadcast or allgather).
  Communicator& world = backend.world();
  for (std::size_t index = 0; index < passes.size(); ++index) {
    SweepPass pass = passes[index];  // a copy: the rows a node layout cannot compose leave it
    const std::uint64_t order_seed = kRoundOrderSeed + index;
    const bool tuned = !(pass.tuning == Tuning{});
    // Until its first point, a fault here is the pass's, not the last point's.
    set_fault_context(fmt::format("pass {} of {} ({}, {})", index + 1, passes.size(),
                                  tuned ? describe(pass.tuning) : "the library's own choices",
                                  name(pass.layout.placement)));
    const bool whole_world =
        pass.layout.groups.size() == 1 && pass.layout.group_size == world.size();
    std::unique_ptr<Communicator> split;
    Communicator* group = &world;
    if (tuned || !whole_world) {
      // A pinned tuning needs communicators of its own: NCCL reads it when one is created.
      const int color = whole_world ? 0 : pass.layout.group_of(world.rank());
      const int joined = color < 0 ? Communicator::kNoColor : color;
      CommunicationWait wait("creating the pass's communicators");
      split = tuned ? backend.tuned_split(pass.tuning, joined, world.rank())
                    : world.split(joined, world.rank());
      group = split.get();
    }
    const auto hierarchy = compose_hierarchy(world, group, pass, notes);
    if (hierarchy) group = hierarchy.get();
    if (pass.rows.empty()) continue;
    const GroupRun run{&world, group, pass.layout.group_size, members_of(pass.layout)};
    std::unique_ptr<RowRunner> runner;
    std::string failure;
    try {  // the first call tells whether the library can run this tuning here
      runner = std::make_unique<RowRunner>(run, measure_settings(config, pass, site, timer_step_s),
                                           buffers, pass.rows.front().collective);
    } catch (const CommunicationFault& error) {
      if (!tuned) throw;
      failure = error.what();
    }
    if (tuned) {  // ranks outside the groups made no first call: every rank skips, or none
      CommunicationWait wait("agreeing whether the tuning runs here");
      if (world.sum_over_ranks(!failure.empty()) > 0) {
        notes.push_back(fmt::format("{} cannot run here ({}); skipped", describe(pass.tuning),
                                    failure.empty() ? "on another rank" : failure));
        continue;
      }
    }
    if (world.rank() == kCoordinatorRank && !runner->load_placement().empty())
      add_note(notes, fmt::format("the {} overlap load of rank 0 runs as {}",
                                  name(*config.overlap_load), runner->load_placement()));
    if (!sweep(*runner, world, pass, config, order_seed, bound, time_left, row_done, curve_done,
               notes))
      return;
  }
}

}  // namespace collbench
