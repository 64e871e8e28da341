#include "harness/predict/rank_prediction.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/fit/bootstrap.h"
#include "harness/predict/nearest_sizes.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

// The `count` sizes of `curve` nearest `size_bytes`, with their times, ascending size.
RankCurve window_of(const RankCurve& curve, double size_bytes, std::size_t count) {
  std::vector<std::size_t> order(curve.sizes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  order = nearest_sizes(std::move(order), size_bytes, count,
                        [&](std::size_t i) { return curve.sizes[i]; });
  std::ranges::sort(order);
  RankCurve window{curve.nranks, {}, {}};
  for (std::size_t i : order) {
    window.sizes.push_back(curve.sizes[i]);
    window.times.push_back(curve.times[i]);
  }
  return window;
}

// The families of `kind` fitted around `size_bytes`, the first `bootstrapped` of them (the chosen
// first) with their replicates: a bootstrap costs a refit per replicate and per point held out.
SizeModel fit_around(CollectiveKind kind, std::span<const RankCurve> curves, double size_bytes,
                     const PredictOptions& options, std::size_t bootstrapped) {
  std::vector<RankCurve> windows;
  for (const RankCurve& curve : curves)
    windows.push_back(window_of(curve, size_bytes, options.window_sizes));
  SizeModel model;
  model.size_bytes = size_bytes;
  model.window = windows.back().sizes;
  model.families = fit_rank_families(kind, windows);
  for (std::size_t f = 0; f < std::min(bootstrapped, model.families.size()); ++f)
    model.replicates.push_back(bootstrap_family(model.families[f].family, windows,
                                                options.bootstrap_replicates, options.seed));
  const auto [fewest, most] = std::ranges::minmax(curves, {}, &RankCurve::nranks);
  model.min_ranks = fewest.nranks;
  model.max_ranks = most.nranks;
  return model;
}

}  // namespace

SizeModel fit_size_model(CollectiveKind kind, std::span<const RankCurve> curves, double size_bytes,
                         const PredictOptions& options) {
  return fit_around(kind, curves, size_bytes, options, std::numeric_limits<std::size_t>::max());
}

RankPrediction predict_ranks(const SizeModel& model, std::size_t family, double ranks) {
  const FamilyFit& fit = model.families.at(family);
  RankPrediction prediction;
  prediction.ranks = ranks;
  prediction.size_bytes = model.size_bytes;
  prediction.latency_s = fit.alpha_s * fit.family.latency_factor(ranks);
  prediction.bandwidth_s =
      fit.beta_s_per_byte * model.size_bytes * fit.family.bandwidth_factor(ranks);
  prediction.time_s = prediction.latency_s + prediction.bandwidth_s;
  // A loose fit's replicate can take a negative alpha or beta and so a time below zero, which
  // would carry on into every interval derived from this one (a step's efficiency past 1 or
  // below 0): no collective takes less than no time.
  std::vector<double> times;
  for (const FamilyCoefficients& replicate : model.replicates.at(family))
    times.push_back(std::max(0.0, family_time(fit.family, replicate.alpha_s,
                                              replicate.beta_s_per_byte, ranks, model.size_bytes)));
  prediction.time_ci = central_95(std::move(times));
  if (ranks > model.max_ranks)
    prediction.doublings_outside = std::log2(ranks / model.max_ranks);
  else if (ranks < model.min_ranks)
    prediction.doublings_outside = std::log2(model.min_ranks / ranks);
  if (!std::isnan(model.error_per_doubling)) {
    prediction.widening = model.error_per_doubling * prediction.doublings_outside;
    prediction.time_ci.low /= 1 + prediction.widening;
    prediction.time_ci.high *= 1 + prediction.widening;
  }
  return prediction;
}

std::vector<OutOfSampleCheck> validate_largest_ranks(CollectiveKind kind,
                                                     std::span<const RankCurve> curves,
                                                     const PredictOptions& options) {
  std::vector<OutOfSampleCheck> checks;
  if (curves.size() < 3) return checks;
  const RankCurve& largest = curves.back();
  const std::span<const RankCurve> smaller = curves.first(curves.size() - 1);
  for (std::size_t i = 0; i < largest.sizes.size(); ++i) {
    // Only the chosen family is checked, so only it is bootstrapped.
    const SizeModel model = fit_around(kind, smaller, largest.sizes[i], options, 1);
    const RankPrediction prediction = predict_ranks(model, 0, largest.nranks);
    checks.push_back({.fitted_up_to = model.max_ranks,
                      .ranks = largest.nranks,
                      .size_bytes = largest.sizes[i],
                      .family = std::string(model.families.front().family.name),
                      .predicted_s = prediction.time_s,
                      .predicted_ci = prediction.time_ci,
                      .measured_s = largest.times[i]});
  }
  return checks;
}

double error_per_doubling(std::span<const OutOfSampleCheck> checks, double size_bytes,
                          const PredictOptions& options) {
  if (checks.empty()) return kNotValidated;
  std::vector<const OutOfSampleCheck*> all;
  for (const OutOfSampleCheck& check : checks) all.push_back(&check);
  std::vector<double> errors;
  for (const OutOfSampleCheck* check :
       nearest_sizes(std::move(all), size_bytes, options.window_sizes,
                     [](const OutOfSampleCheck* check) { return check->size_bytes; }))
    errors.push_back(std::abs(check->relative_error()) /
                     std::log2(static_cast<double>(check->ranks) / check->fitted_up_to));
  return summarize(errors).median;
}

}  // namespace collbench
