#include "harness/report/prediction_report.h"

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "harness/plan/point_identity.h"
#include "harness/plan/sizes.h"
#include "harness/report/json_number.h"
#include "harness/report/model_report.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

std::string rank_counts_text(const CurvePrediction& curve) {
  std::vector<int> counts;
  for (const RankCurve& measured : curve.measured) counts.push_back(measured.nranks);
  return fmt::format("{}", fmt::join(counts, ", "));
}

std::string checks_text(const CurvePrediction& curve) {
  if (curve.checks.empty())
    return "not validated out of sample (it needs three rank counts: two to fit, one to predict); "
           "the intervals hold the fit's own uncertainty only";
  std::vector<double> errors;
  int inside = 0;
  for (const OutOfSampleCheck& check : curve.checks) {
    errors.push_back(std::abs(check.relative_error()));
    inside += check.inside();
  }
  const OutOfSampleCheck& first = curve.checks.front();
  const Summary error = summarize(errors);
  return fmt::format(
      "out of sample, fitted up to {} ranks and predicting {}: median error {:.1f}% over {} sizes "
      "(largest {:.1f}%), {} inside their intervals",
      first.fitted_up_to, first.ranks, 100 * error.median, errors.size(), 100 * error.max,
      inside);
}

std::string extrapolation_text(const SizePrediction& size, const RankPrediction& prediction) {
  if (prediction.doublings_outside == 0) return "inside";
  const std::string where = prediction.ranks > size.model.max_ranks
                                ? fmt::format("past {}", size.model.max_ranks)
                                : fmt::format("below {}", size.model.min_ranks);
  return std::isnan(size.model.error_per_doubling)
             ? fmt::format("{:.1f} doublings {}, not widened", prediction.doublings_outside, where)
             : fmt::format("{:.1f} doublings {}, widened x{:.2f}", prediction.doublings_outside,
                           where, 1 + prediction.widening);
}

double tail_growth(const SizePrediction& size) {
  if (!size.tail) return std::nan("");
  return size.tail->asked.back().tail_s - size.tail->asked.front().tail_s;
}

std::string tail_cell(const SizePrediction& size, std::size_t asked) {
  if (!size.tail) return "-";
  const TailPrediction& tail = size.tail->asked[asked];
  return fmt::format("{:.1f} [{:.1f}, {:.1f}]", tail.tail_s * 1e6, tail.tail_ci.low * 1e6,
                     tail.tail_ci.high * 1e6);
}

std::string tail_line(const std::optional<SizeTail>& maybe_tail) {
  if (!maybe_tail)
    return "# tail: no per-rank samples on the common clock (latency, window starts): no tail";
  const SizeTail& tail = *maybe_tail;
  std::vector<std::string> measured;
  for (const MeasuredTailRatio& point : tail.measured)
    measured.push_back(fmt::format("{:.2f} at {} ({})", point.p99_over_median, point.ranks,
                                   bytes_text(point.size_bytes)));
  std::vector<std::string> predicted;
  for (const TailPrediction& at : tail.asked)
    predicted.push_back(fmt::format("{:.2f} [{:.2f}, {:.2f}] at {:.0f}", at.p99_over_median,
                                    at.p99_over_median_ci.low, at.p99_over_median_ci.high,
                                    at.ranks));
  return fmt::format(
      "# tail: p99/median measured {}; predicted from the {}-rank point of {}: {}; the tail is "
      "not added into time(us), whose families are fitted to times that hold it",
      fmt::join(measured, ", "), tail.from_ranks, bytes_text(tail.from_bytes),
      fmt::join(predicted, ", "));
}

std::string tail_checks_text(const CurvePrediction& curve) {
  if (curve.tail_checks.empty()) return "";
  std::vector<double> median_errors;
  std::vector<double> ratio_errors;
  for (const TailCheck& check : curve.tail_checks) {
    median_errors.push_back(std::abs(check.median_error()));
    ratio_errors.push_back(std::abs(check.p99_over_median_error()));
  }
  const TailCheck& first = curve.tail_checks.front();
  return fmt::format("; tail out of sample, from {} ranks predicting {}: median error {:.1f}%, "
                     "p99/median error {:.1f}% (medians over {} sizes)",
                     first.from_ranks, first.ranks, 100 * summarize(median_errors).median,
                     100 * summarize(ratio_errors).median, ratio_errors.size());
}

// The what-if of smaller gradients under a size asked for; empty without narrower datatypes.
std::optional<std::string> narrower_line(const Predictions& predictions,
                                         const CurvePrediction& curve, const SizePrediction& size) {
  const std::vector<NarrowerGradient> narrower = narrower_gradients(predictions, curve, size);
  if (narrower.empty()) return std::nullopt;
  std::vector<std::string> types;
  for (const NarrowerGradient& gradient : narrower) {
    std::vector<std::string> at;
    for (std::size_t i = 0; i < size.asked.size(); ++i) {
      const RankPrediction& prediction = gradient.size->asked[i];
      at.push_back(fmt::format("{:.1f} us [{:.1f}, {:.1f}] at {:.0f} ({:.2f}x)",
                               prediction.time_s * 1e6, prediction.time_ci.low * 1e6,
                               prediction.time_ci.high * 1e6, prediction.ranks,
                               prediction.time_s / size.asked[i].time_s));
    }
    types.push_back(fmt::format("as {} ({}) {}", name(gradient.datatype),
                                bytes_text(gradient.size->model.size_bytes), fmt::join(at, ", ")));
  }
  return fmt::format("# smaller gradients, the same {:.0f} elements: {}",
                     size.model.size_bytes / static_cast<double>(size_of(curve.key.datatype)),
                     fmt::join(types, "; "));
}

nlohmann::ordered_json narrower_json(const Predictions& predictions, const CurvePrediction& curve,
                                     const SizePrediction& size) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const NarrowerGradient& gradient : narrower_gradients(predictions, curve, size)) {
    nlohmann::ordered_json ratios = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < size.asked.size(); ++i)
      ratios.push_back(gradient.size->asked[i].time_s / size.asked[i].time_s);
    json.push_back({{"datatype", name(gradient.datatype)},
                    {"size_bytes", gradient.size->model.size_bytes},
                    {"time_ratio", std::move(ratios)}});
  }
  return json;
}

std::string size_line(const CurvePrediction& curve, const SizePrediction& size) {
  const SizeModel& model = size.model;
  const double largest = curve.measured.back().sizes.back();
  const double smallest = curve.measured.back().sizes.front();
  std::string where;
  if (model.size_bytes > largest)
    where = fmt::format("; size extrapolated: measured up to {}", bytes_text(largest));
  else if (model.size_bytes < smallest)
    where = fmt::format("; size extrapolated: measured from {}", bytes_text(smallest));
  if (size.same_elements_as)
    where += fmt::format("; not asked for: a {} size's elements, as {}",
                         name(*size.same_elements_as), name(curve.key.datatype));
  const FamilyFit& chosen = model.families.front();
  return fmt::format(
      "# {}: {} family (alpha {:.3g} us, {:.3g} GB/s) fitted to the sizes {} .. {}{}; "
      "ring p* = {}{}{}; {}",
      bytes_text(model.size_bytes), chosen.family.name, chosen.alpha_s * 1e6,
      1e-9 / chosen.beta_s_per_byte, bytes_text(model.window.front()),
      bytes_text(model.window.back()), where,
      size.crossover_ranks ? fmt::format("{:.0f} ranks", *size.crossover_ranks) : "n/a",
      ranks_interval_text(size.crossover_ci),
      size.crossover_ranks && *size.crossover_ranks > model.max_ranks
          ? fmt::format(" (extrapolated: measured up to {})", model.max_ranks)
          : "",
      std::isnan(model.error_per_doubling)
          ? std::string("no extrapolation error known")
          : fmt::format("{:.1f}% error a doubling of ranks", 100 * model.error_per_doubling));
}

std::string overlap_words(const SizePrediction& size, const StepShape& step) {
  if (!step.measured_overlap)
    return fmt::format("{:.0f}% of the collective hidden", 100 * step.overlap);
  if (!size.overlap) return "no overlap measured for this curve (run --overlap-load)";
  const OverlapMeasure& measured = size.overlap->measure;
  return fmt::format("{:.0f}% [{:.0f}, {:.0f}] of the collective hidden as measured at {} ranks, "
                     "{} (beside the load: the collective x{:.2f}, the load x{:.2f})",
                     100 * measured.hidden, 100 * measured.hidden_ci.low,
                     100 * measured.hidden_ci.high, size.overlap->ranks,
                     format_size(static_cast<std::size_t>(size.overlap->size_bytes)),
                     measured.collective_slowdown, measured.load_slowdown);
}

std::string step_line(const SizePrediction& size, const StepShape& asked_step) {
  const StepShape step = step_at(asked_step, size.overlap);
  std::vector<std::string> parts;
  for (const RankPrediction& prediction : size.asked) {
    const StepEfficiency efficiency = step_efficiency(prediction, step);
    parts.push_back(fmt::format("{:.1f}% [{:.1f}, {:.1f}] at {:.0f}", 100 * efficiency.efficiency,
                                100 * efficiency.efficiency_ci.low,
                                100 * efficiency.efficiency_ci.high, prediction.ranks));
  }
  std::string line = fmt::format("# step of {:.3g} ms compute, {}: efficiency {}",
                                 step.compute_s * 1e3, overlap_words(size, asked_step),
                                 fmt::join(parts, ", "));
  if (size.asked.size() >= 2) {
    const RankPrediction& fewer = size.asked.front();
    const RankPrediction& more = size.asked.back();
    line += fmt::format(
        "; from {:.0f} to {:.0f} ranks the {} term grows most (latency {:+.1f} us, bandwidth "
        "{:+.1f} us)",
        fewer.ranks, more.ranks, fastest_growing_term(fewer, more, tail_growth(size)),
        (more.latency_s - fewer.latency_s) * 1e6, (more.bandwidth_s - fewer.bandwidth_s) * 1e6);
    if (size.tail) line += fmt::format(", tail {:+.1f} us", tail_growth(size) * 1e6);
  }
  return line;
}

nlohmann::ordered_json tail_json(const SizePrediction& size, std::size_t asked) {
  if (!size.tail)
    return {{"tail_us", nullptr},
            {"tail_ci_us", nullptr},
            {"p99_over_median", nullptr},
            {"p99_over_median_ci", nullptr}};
  const TailPrediction& tail = size.tail->asked[asked];
  return {{"tail_us", tail.tail_s * 1e6},
          {"tail_ci_us", {tail.tail_ci.low * 1e6, tail.tail_ci.high * 1e6}},
          {"p99_over_median", tail.p99_over_median},
          {"p99_over_median_ci", {tail.p99_over_median_ci.low, tail.p99_over_median_ci.high}}};
}

nlohmann::ordered_json measured_tail_json(const SizePrediction& size) {
  if (!size.tail) return nullptr;
  nlohmann::ordered_json json{{"from_ranks", size.tail->from_ranks},
                              {"from_bytes", size.tail->from_bytes},
                              {"measured", nlohmann::ordered_json::array()}};
  for (const MeasuredTailRatio& point : size.tail->measured)
    json["measured"].push_back({{"ranks", point.ranks},
                                {"size_bytes", point.size_bytes},
                                {"p99_over_median", point.p99_over_median}});
  return json;
}

nlohmann::ordered_json measured_overlap_json(const SizePrediction& size) {
  if (!size.overlap) return nullptr;
  const OverlapMeasure& measured = size.overlap->measure;
  return {{"ranks", size.overlap->ranks},
          {"size_bytes", size.overlap->size_bytes},
          {"hidden", measured.hidden},
          {"hidden_ci", {measured.hidden_ci.low, measured.hidden_ci.high}},
          {"collective_slowdown", measured.collective_slowdown},
          {"load_slowdown", measured.load_slowdown}};
}

nlohmann::ordered_json prediction_json(const SizePrediction& size, const RankPrediction& prediction,
                                       const std::optional<StepShape>& step) {
  nlohmann::ordered_json json{
      {"ranks", prediction.ranks},
      {"time_us", prediction.time_s * 1e6},
      {"time_ci_us", {prediction.time_ci.low * 1e6, prediction.time_ci.high * 1e6}},
      {"latency_us", prediction.latency_s * 1e6},
      {"bandwidth_us", prediction.bandwidth_s * 1e6},
      {"doublings_outside", prediction.doublings_outside},
      {"widening", finite_or_null(std::isnan(size.model.error_per_doubling)
                                      ? std::nan("")
                                      : prediction.widening)}};
  if (step) {
    const StepEfficiency efficiency = step_efficiency(prediction, step_at(*step, size.overlap));
    json["exposed_us"] = finite_or_null(efficiency.exposed_s * 1e6);
    json["efficiency"] = finite_or_null(efficiency.efficiency);
    json["efficiency_ci"] = {finite_or_null(efficiency.efficiency_ci.low),
                             finite_or_null(efficiency.efficiency_ci.high)};
  }
  return json;
}

}  // namespace

void print_predictions(std::ostream& out, const Predictions& predictions,
                       const std::optional<StepShape>& step) {
  for (const CurvePrediction& curve : predictions.curves) {
    fmt::print(out, "# {}: measured at {} ranks; {}{}\n", curve_text(curve.key),
               rank_counts_text(curve), checks_text(curve), tail_checks_text(curve));
    fmt::print(out, "# {:>10} {:>7} {:<7} {:>12} {:>27} {:>12} {:>13} {:>24}  {}\n", "size",
               "ranks", "family", "time(us)", "95% interval (us)", "latency(us)", "bandwidth(us)",
               "tail(us)", "extrapolation");
    for (const SizePrediction& size : curve.sizes) {
      for (std::size_t i = 0; i < size.asked.size(); ++i) {
        const RankPrediction& prediction = size.asked[i];
        fmt::print(out, "  {:>10} {:>7.0f} {:<7} {:>12.1f} {:>27} {:>12.1f} {:>13.1f} {:>24}  {}\n",
                   bytes_text(size.model.size_bytes), prediction.ranks,
                   size.model.families.front().family.name, prediction.time_s * 1e6,
                   fmt::format("[{:.1f}, {:.1f}]", prediction.time_ci.low * 1e6,
                               prediction.time_ci.high * 1e6),
                   prediction.latency_s * 1e6, prediction.bandwidth_s * 1e6, tail_cell(size, i),
                   extrapolation_text(size, prediction));
      }
      fmt::print(out, "{}\n", size_line(curve, size));
      fmt::print(out, "{}\n", tail_line(size.tail));
      if (const auto line = narrower_line(predictions, curve, size))
        fmt::print(out, "{}\n", *line);
      if (step) fmt::print(out, "{}\n", step_line(size, *step));
    }
  }
  for (const PointKey& key : predictions.single_rank_count)
    fmt::print(out, "# {}: measured at one rank count only; nothing to predict from\n",
               curve_text(key));
  for (const PointKey& key : predictions.no_rank_family)
    fmt::print(out, "# {}: one step at any rank count, no family of p; nothing to predict\n",
               curve_text(key));
}

nlohmann::ordered_json predictions_json(const Predictions& predictions,
                                        const std::optional<StepShape>& step) {
  nlohmann::ordered_json json{{"curves", nlohmann::ordered_json::array()},
                              {"single_rank_count", nlohmann::ordered_json::array()},
                              {"no_rank_family", nlohmann::ordered_json::array()}};
  for (const CurvePrediction& curve : predictions.curves) {
    auto entry = key_json(curve.key, false);
    entry["measured_ranks"] = nlohmann::ordered_json::array();
    for (const RankCurve& measured : curve.measured)
      entry["measured_ranks"].push_back(measured.nranks);
    entry["checks"] = nlohmann::ordered_json::array();
    for (const OutOfSampleCheck& check : curve.checks)
      entry["checks"].push_back({{"fitted_up_to", check.fitted_up_to},
                                 {"ranks", check.ranks},
                                 {"size_bytes", check.size_bytes},
                                 {"family", check.family},
                                 {"predicted_us", check.predicted_s * 1e6},
                                 {"predicted_ci_us",
                                  {check.predicted_ci.low * 1e6, check.predicted_ci.high * 1e6}},
                                 {"measured_us", check.measured_s * 1e6},
                                 {"relative_error", check.relative_error()},
                                 {"inside", check.inside()}});
    entry["tail_checks"] = nlohmann::ordered_json::array();
    for (const TailCheck& check : curve.tail_checks)
      entry["tail_checks"].push_back(
          {{"from_ranks", check.from_ranks},
           {"ranks", check.ranks},
           {"size_bytes", check.size_bytes},
           {"predicted_median_us", check.predicted_median_s * 1e6},
           {"predicted_p99_over_median", check.predicted_p99_over_median},
           {"measured_median_us", check.measured_median_s * 1e6},
           {"measured_p99_over_median", check.measured_p99_over_median},
           {"median_error", check.median_error()},
           {"p99_over_median_error", check.p99_over_median_error()}});
    entry["sizes"] = nlohmann::ordered_json::array();
    for (const SizePrediction& size : curve.sizes) {
      nlohmann::ordered_json at_size{
          {"size_bytes", size.model.size_bytes},
          {"family", size.model.families.front().family.name},
          {"alpha_us", size.model.families.front().alpha_s * 1e6},
          {"beta_ns_per_byte", size.model.families.front().beta_s_per_byte * 1e9},
          {"window_bytes", size.model.window},
          {"error_per_doubling", finite_or_null(size.model.error_per_doubling)},
          {"crossover_ranks", size.crossover_ranks ? nlohmann::ordered_json(*size.crossover_ranks)
                                                   : nullptr},
          {"crossover_ranks_ci",
           {finite_or_null(size.crossover_ci.low), finite_or_null(size.crossover_ci.high)}},
          {"tail", measured_tail_json(size)},
          {"overlap", measured_overlap_json(size)},
          {"same_elements_as",
           size.same_elements_as ? nlohmann::ordered_json(name(*size.same_elements_as)) : nullptr},
          {"narrower", narrower_json(predictions, curve, size)},
          {"predictions", nlohmann::ordered_json::array()}};
      for (std::size_t i = 0; i < size.asked.size(); ++i) {
        nlohmann::ordered_json prediction = prediction_json(size, size.asked[i], step);
        prediction.update(tail_json(size, i));
        at_size["predictions"].push_back(std::move(prediction));
      }
      entry["sizes"].push_back(std::move(at_size));
    }
    json["curves"].push_back(std::move(entry));
  }
  for (const PointKey& key : predictions.single_rank_count)
    json["single_rank_count"].push_back(key_json(key, false));
  for (const PointKey& key : predictions.no_rank_family)
    json["no_rank_family"].push_back(key_json(key, false));
  return json;
}

}  // namespace collbench
