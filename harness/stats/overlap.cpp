#include "harness/stats/overlap.h"

#include <algorithm>
#include <random>
#include <span>

#include "harness/stats/summary.h"
#include "harness/stats/uniform_index.h"

namespace collbench {
namespace {

double median_of(std::vector<double> values) { return median_by_selection(values); }

double hidden_share(double step, double load_alone, double collective_alone) {
  return 1 - (step - load_alone) / collective_alone;
}

std::vector<double> resampled(std::span<const double> values, std::mt19937_64& engine) {
  std::vector<double> drawn(values.size());
  for (double& value : drawn) value = values[uniform_index(engine, values.size())];
  return drawn;
}

}  // namespace

OverlapMeasure measure_overlap(const OverlapSamples& samples, int bootstrap_replicates,
                               std::uint64_t seed) {
  const double load_alone = median_of(samples.load_alone);
  const double collective_alone = median_of(samples.collective_alone);
  OverlapMeasure measure;
  measure.collective_slowdown = median_of(samples.collective_beside) / collective_alone;
  measure.load_slowdown = median_of(samples.load_beside) / load_alone;
  measure.hidden = hidden_share(median_of(samples.steps), load_alone, collective_alone);
  // The three series are sampled apart (interleaved, not paired), so each is resampled alone.
  std::mt19937_64 engine(seed);
  std::vector<double> replicates;
  for (int replicate = 0; replicate < bootstrap_replicates; ++replicate)
    replicates.push_back(hidden_share(median_of(resampled(samples.steps, engine)),
                                      median_of(resampled(samples.load_alone, engine)),
                                      median_of(resampled(samples.collective_alone, engine))));
  if (!replicates.empty()) {
    std::ranges::sort(replicates);
    measure.hidden_ci = {percentile_of_sorted(replicates, 2.5),
                         percentile_of_sorted(replicates, 97.5)};
  }
  return measure;
}

}  // namespace collbench
