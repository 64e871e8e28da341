#include "run_output.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cli/report_command.h"
#include "harness/fit/curve_fits.h"
#include "harness/measure/fault_guard.h"
#include "harness/plan/sizes.h"
#include "harness/predict/hierarchy_against_flat.h"
#include "harness/provenance/clock.h"
#include "harness/provenance/provenance.h"
#include "harness/report/convergence_mark.h"
#include "harness/report/hierarchy_report.h"
#include "harness/report/model_report.h"
#include "harness/report/overlap_report.h"
#include "harness/report/straggler_report.h"
#include "harness/report/whole_file.h"
#include "harness/stats/rounds.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

std::string row_label(const PlannedRow& row) {
  return fmt::format("{} {} {} {}", name(row.collective), name(row.datatype),
                     uses_reduce_op(row.collective) ? name(row.op) : "",
                     format_size(row.shape.size_bytes));
}

// How many points reached the precision target, and what stopped the others.
std::string stops_text(const std::array<std::size_t, kStopReasons>& stops, double target_ci) {
  std::vector<std::string> parts;
  if (const auto converged = stops[static_cast<std::size_t>(StopReason::converged)])
    parts.push_back(fmt::format("{} reached the {:g}% target", converged, 100 * target_ci));
  for (const auto& [reason, words] :
       {std::pair{StopReason::max_time, "stopped at --max-time"},
        std::pair{StopReason::time_limit, "stopped by --time-limit"},
        std::pair{StopReason::round_noise, "held back by the spread between rounds"},
        std::pair{StopReason::fixed_count, "fixed by -n"}})
    if (const auto count = stops[static_cast<std::size_t>(reason)])
      parts.push_back(fmt::format("{} {}", count, words));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// How far apart the rounds of the points held back by them lay, in the table's terms (the
// +-x% of its ci column): what the machine's speed did between rounds, in one line.
std::string held_back_line(std::vector<double> spreads) {
  if (spreads.empty()) return "";
  std::ranges::sort(spreads);
  return fmt::format(
      "# held back: the rounds of {} points disagreed, their medians within ±{} of their middle "
      "at the median point (±{} to ±{}): the machine's speed moved between rounds, which more "
      "samples cannot narrow and more --rounds or a quieter machine can",
      spreads.size(), percent_text(percentile_of_sorted(spreads, 50)),
      percent_text(spreads.front()), percent_text(spreads.back()));
}

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace

RunOutput::RunOutput(const RunConfig& config, std::unique_ptr<ResultWriter> writer,
                     std::size_t total_points)
    : config_(config),
      writer_(std::move(writer)),
      reporter_(make_reporter("table", std::cout)),
      progress_(config.quiet, config.progress, total_points),
      total_points_(total_points) {}

void RunOutput::begin(const Provenance& provenance, const JobTopology& topology,
                      const RunDescription& run) {
  {
    FileWriteSection section;
    writer_->write_provenance(provenance);
    writer_->write_topology(topology.ranks);
  }
  stragglers_.emplace(topology.ranks);
  binding_warning_ = provenance.text_of(kBindingWarning);
  const std::string warning =
      binding_warning_.empty() ? "" : fmt::format("# warning: {}\n", binding_warning_);
  // A finding about every number that follows: said even in a quiet run, on stderr then.
  if (config_.quiet) {
    fmt::print(stderr, "{}", warning);
    return;
  }
  reporter_->begin(run);
  fmt::print("{}", warning);
  // What the sweep will take, before it takes it: each point stops at --max-time at the latest.
  const double budget = static_cast<double>(total_points_) * config_.sampling.stopping.max_time_s;
  fmt::print("# sweep: {} points; sampling takes at most {} ({:g} s a point{})\n", total_points_,
             duration_text(config_.time_limit_s ? std::min(budget, *config_.time_limit_s) : budget),
             config_.sampling.stopping.max_time_s,
             config_.time_limit_s ? fmt::format(", --time-limit {:g} s", *config_.time_limit_s)
                                  : "");
}

void RunOutput::record_host_probe(const HostProbe& probe) {
  FileWriteSection section;
  writer_->write_host_probe(probe);
}

void RunOutput::add_row(const std::vector<PointResult>& points, const PlannedRow& row) {
  for (const auto& point : points) {
    FileWriteSection section;
    writer_->append_point(point);
    if (point.checks.failed()) wrong_ = true;
    if (point.implausible != Implausible::no) ++implausible_;
    ++stops_[static_cast<std::size_t>(point.stop_reason)];
    if (point.stop_reason == StopReason::round_noise)
      if (const double spread = round_spread(kept_round_medians(point)); std::isfinite(spread))
        held_back_spreads_.push_back(spread);
    stragglers_->add(point);
    PointResult& summary = summaries_.emplace_back();
    summary.key = point.key;
    summary.summary = point.summary;
    summary.overlap = point.overlap;
  }
  if (config_.fit) measured_.insert(measured_.end(), points.begin(), points.end());
  done_ += points.size();
  progress_.finish();
  if (!config_.quiet) reporter_->row(points);
  progress_.update(done_, row_label(row));
}

void RunOutput::finish(const std::vector<std::string>& notes, double seconds) {
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
  const StragglerRecord stragglers = stragglers_->record();
  {
    FileWriteSection section;
    writer_->write_stragglers(stragglers);
    writer_->finish(utc_now_iso8601());
  }
  if (!config_.quiet) reporter_->end();
  if (models && !config_.quiet)
    for (const auto& line : model_footer_lines(*models)) fmt::print("{}\n", line);
  if (!config_.quiet)
    for (const auto& line : hierarchy_lines(hierarchy_against_flat(summaries_)))
      fmt::print("{}\n", line);
  if (config_.overlap_load && !config_.quiet)
    for (const auto& line : overlap_lines(summaries_, *config_.overlap_load))
      fmt::print("{}\n", line);
  // Named even in a quiet run, as its notes are: a finding, not progress.
  for (const auto& line : straggler_footer_lines(stragglers, binding_warning_))
    fmt::print("{}\n", line);
  for (const auto& note : notes) fmt::print("# note: {}\n", note);
  if (const std::string held_back = held_back_line(held_back_spreads_); !held_back.empty())
    fmt::print("{}\n", held_back);
  // A finding too: said even in a quiet run, whose table is not there to say it.
  if (implausible_ > 0)
    fmt::print("# implausible: {} points are faster than this host can move data (each named "
               "after its row); `collbench check` fails them\n",
               implausible_);
  if (config_.nccl_tests_json) {
    // From the file, as `report --format nccl-tests-json` prints it.
    std::ostringstream json;
    report_run(read_result_file(config_.output.path, true),
               *make_reporter("nccl-tests-json", json));
    replace_whole(*config_.nccl_tests_json, json.str());
    fmt::print("# nccl-tests JSON in {}\n", config_.nccl_tests_json->string());
  }
  std::error_code ignored;
  const auto bytes = std::filesystem::file_size(config_.output.path, ignored);
  fmt::print("# {} points in {:.1f} s ({}); results in {} ({})\n", done_, seconds,
             stops_text(stops_, config_.sampling.stopping.target_ci), config_.output.path.string(),
             format_size(bytes));
}

}  // namespace collbench
