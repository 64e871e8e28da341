#include "point_fields.h"

#include <string_view>
#include <type_traits>
#include <variant>

#include "harness/plan/point_identity.h"
#include "harness/report/convergence_mark.h"
#include "harness/report/json_number.h"
#include "harness/report/reporter.h"
#include "harness/store/point_record.h"

namespace collbench {

nlohmann::ordered_json point_fields(const PointResult& p) {
  const auto us = [](double seconds) { return seconds * 1e6; };
  const Summary& s = p.summary;
  const nlohmann::ordered_json key = key_json(p.key, true);
  nlohmann::ordered_json fields;
  for (const auto& [field, value] : key.items()) {
    if (field == "root") continue;  // every row has one, below, so that CSV columns line up
    fields[field] = value;
    if (field != "protocol") continue;
    // What the library chose, beside what was pinned; empty where the library did not say.
    fields["chosen_algorithm"] = choice_name(p.chosen.algorithm);
    fields["chosen_protocol"] = choice_name(p.chosen.protocol);
    fields["chosen_channels"] = p.chosen.channels;
  }
  fields["count"] = p.key.count;
  fields["root"] = p.key.root;
  fields["samples"] = s.samples;
  fields["ops_per_sample"] = p.ops_per_sample;
  fields["stop_reason"] = name(p.stop_reason);
  fields["converged"] = converged(p);
  fields["ci_rel_halfwidth"] = relative_ci_halfwidth(s);  // null when there is no interval
  // What the table's last column shows, and the rounds behind it: null with fewer than two.
  const std::vector<RoundMedian> rounds = kept_round_medians(p);
  fields["ci_mark"] = convergence_mark(p);
  fields["round_spread_rel"] = finite_or_null(round_spread(rounds));
  fields["rounds_agree"] =
      rounds.size() >= 2 ? nlohmann::ordered_json(rounds_agree(rounds)) : nullptr;
  fields["invalid_samples"] = p.invalid_samples;
  fields["window_margin_us"] = us(p.window_margin_s);  // null outside window starts
  fields["clock_error_us"] = us(p.clock_error_s);
  for (const SummaryField& field : kSummaryFields) fields[field.name] = us(s.*field.seconds);
  fields["osu_mean_us"] = us(p.osu_mean_s);  // null but at barrier-started latency points
  fields["algbw_GBps"] = p.algbw_gbps;
  fields["busbw_GBps"] = p.busbw_gbps;
  fields["wrong"] = p.checks.wrong();  // the table's #wrong: the check that found more
  fields["wrong_before_timing"] = p.checks.before_timing;
  fields["wrong_after_timing"] = p.checks.after_timing;
  fields["implausible"] = name(p.implausible);  // empty at a plausible point
  // null without --overlap-load
  fields["overlap_collective_slowdown"] = finite_or_null(p.overlap.collective_slowdown);
  fields["overlap_load_slowdown"] = finite_or_null(p.overlap.load_slowdown);
  fields["overlap_hidden"] = finite_or_null(p.overlap.hidden);
  fields["overlap_hidden_ci_low"] = finite_or_null(p.overlap.hidden_ci.low);
  fields["overlap_hidden_ci_high"] = finite_or_null(p.overlap.hidden_ci.high);
  for_each_point_cell(p, [&](std::string_view column, const PointCell& value) {
    if (fields.contains(column)) return;
    std::visit(
        [&](const auto& cell) {
          if constexpr (std::is_same_v<std::decay_t<decltype(cell)>, double>)
            fields[column] = finite_or_null(cell);
          else
            fields[column] = cell;
        },
        value);
  });
  return fields;
}

}  // namespace collbench
