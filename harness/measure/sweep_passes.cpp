#include "sweep_passes.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "benches/backends/tuning.h"
#include "harness/measure/fault_guard.h"
#include "harness/measure/row_runner.h"

namespace collbench {
namespace {

constexpr int kRoot = 0;

std::string describe(const Tuning& tuning) {
  return fmt::format("NCCL algorithm {}, protocol {}", or_auto(tuning.algorithm),
                     or_auto(tuning.protocol));
}

void add_note(std::vector<std::string>& notes, std::string note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
}

std::vector<GroupLayout> layouts_for(const RunConfig& config, const std::vector<RankPlace>& places) {
  std::vector<GroupLayout> layouts;
  for (const auto& placement : config.placements)
    layouts.push_back(placement == "intra"   ? intra_layout(places)
                      : placement == "inter" ? inter_layout(places)
                                             : world_layout(places));
  const int world_size = static_cast<int>(places.size());
  for (int size : config.rank_counts_pow2 ? powers_of_two_up_to(world_size) : config.rank_counts)
    layouts.push_back(subset_layout(places, size, config.spread));
  return layouts;
}

// The plan's rows the backend runs with this tuning; a note for each collective left out.
std::vector<PlannedRow> rows_for(const SweepPlan& plan, const Backend& backend,
                                 const Tuning& tuning, std::vector<std::string>& notes) {
  std::vector<PlannedRow> rows;
  for (const PlannedRow& row : plan.rows) {
    if (backend.supports(row.collective, tuning))
      rows.push_back(row);
    else
      add_note(notes, fmt::format("{} has no {}; skipped with it", describe(tuning),
                                  name(row.collective)));
  }
  return rows;
}

MeasureSettings measure_settings(const RunConfig& config, const SweepPass& pass) {
  MeasureSettings settings;
  settings.backend = config.backend;
  settings.placement = pass.layout.placement;
  settings.tuning = pass.tuning;
  settings.modes = config.modes;
  settings.in_place = config.in_place;
  settings.warmup_iters = config.warmup_iters;
  settings.check_iters = config.check_iters;
  settings.stopping = config.stopping;
  settings.latency_start = config.latency_start;
  return settings;
}

std::vector<int> members_of(const GroupLayout& layout) {
  std::vector<int> members;
  for (const auto& group : layout.groups) members.insert(members.end(), group.begin(), group.end());
  std::sort(members.begin(), members.end());
  return members;
}

// One pass's rows. False when --time-limit ended it.
bool sweep(RowRunner& runner, Communicator& world, const SweepPass& pass, const RunConfig& config,
           const TimeLeft& time_left, const RowDone& row_done, std::vector<std::string>& notes) {
  for (const PlannedRow& row : pass.rows) {
    const std::optional<double> left = time_left();
    int go = !left || *left > 0;  // rank 0's clock decides for everyone
    {
      CommunicationWait wait("rank 0's go-ahead for the next row");
      world.broadcast_value(go, kRoot);
    }
    const auto points = go ? runner.measure(row, left) : std::vector<PointResult>{};
    if (!points.empty()) row_done(points, row);
    if (points.size() < points_per_row(config)) {
      notes.push_back(fmt::format("--time-limit of {} s reached; the sweep stopped early",
                                  *config.time_limit_s));
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<SweepPass> plan_passes(const RunConfig& config, const Backend& backend,
                                   const std::vector<RankPlace>& places,
                                   std::vector<std::string>& notes) {
  std::vector<SweepPass> passes;
  for (GroupLayout& layout : layouts_for(config, places)) {
    if (!layout.skipped.empty()) {
      notes.push_back(fmt::format("placement {} skipped: {}", layout.placement, layout.skipped));
      continue;
    }
    SweepPlan plan = plan_sweep(config, layout.group_size);
    for (auto& note : plan.notes) add_note(notes, std::move(note));
    plan.notes.clear();
    for (const Tuning& tuning : config.tunings) {
      auto rows = rows_for(plan, backend, tuning, notes);
      if (!rows.empty()) passes.push_back({layout, tuning, plan, std::move(rows)});
    }
  }
  return passes;
}

void run_passes(Backend& backend, const std::vector<SweepPass>& passes, const RunConfig& config,
                const TimeLeft& time_left, const RowDone& row_done,
                std::vector<std::string>& notes) {
  // The control plane (barriers, sample times, decisions) always runs on the untuned world: a
  // pinned algorithm may lack what it needs (NCCL's Tree has no broadcast or allgather).
  Communicator& world = backend.world();
  for (const SweepPass& pass : passes) {
    const bool tuned = !(pass.tuning == Tuning{});
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
    const GroupRun run{&world, group, pass.layout.group_size, members_of(pass.layout)};
    std::unique_ptr<RowRunner> runner;
    std::string failure;
    try {  // the first call tells whether the library can run this tuning here
      runner = std::make_unique<RowRunner>(run, measure_settings(config, pass), pass.plan,
                                           pass.rows.front().collective);
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
    if (!sweep(*runner, world, pass, config, time_left, row_done, notes)) return;
  }
}

}  // namespace collbench
