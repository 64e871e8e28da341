#include "harness/predict/step_efficiency.h"

namespace collbench {
namespace {

double efficiency_of(double collective_s, double overlap, const StepShape& step) {
  return step.compute_s / (step.compute_s + (1 - overlap) * collective_s);
}

}  // namespace

StepEfficiency step_efficiency(const RankPrediction& collective, const StepShape& step) {
  const Interval overlap =
      step.measured_overlap ? step.overlap_ci : Interval{step.overlap, step.overlap};
  return {.exposed_s = (1 - step.overlap) * collective.time_s,
          .efficiency = efficiency_of(collective.time_s, step.overlap, step),
          .efficiency_ci = {efficiency_of(collective.time_ci.high, overlap.low, step),
                            efficiency_of(collective.time_ci.low, overlap.high, step)}};
}

std::string_view fastest_growing_term(const RankPrediction& fewer, const RankPrediction& more,
                                      double tail_growth_s) {
  const double latency = more.latency_s - fewer.latency_s;
  const double bandwidth = more.bandwidth_s - fewer.bandwidth_s;
  // NaN compares false: an unknown tail never grows most.
  if (tail_growth_s > latency && tail_growth_s > bandwidth) return "tail";
  return latency >= bandwidth ? "latency" : "bandwidth";
}

}  // namespace collbench
