#include "harness/predict/curve_predictions.h"

#include <algorithm>
#include <cmath>

namespace collbench {
namespace {

constexpr int kBandPointsPerDoubling = 8;

std::vector<RankPrediction> band_of(const SizeModel& model, double most_ranks) {
  std::vector<RankPrediction> band;
  const double doublings = std::log2(most_ranks / model.min_ranks);
  const int steps = static_cast<int>(std::ceil(doublings * kBandPointsPerDoubling));
  for (int step = 0; step <= steps; ++step)
    band.push_back(predict_ranks(
        model, 0, model.min_ranks * std::exp2(doublings * step / std::max(steps, 1))));
  return band;
}

void add_crossover(CollectiveKind kind, SizePrediction& prediction) {
  const SizeModel& model = prediction.model;
  const auto ring = std::ranges::find(model.families, reference_family(kind).name,
                                      [](const FamilyFit& fit) { return fit.family.name; });
  const auto index = static_cast<std::size_t>(ring - model.families.begin());
  prediction.crossover_ranks = ring_crossover_ranks(*ring, model.size_bytes);
  prediction.crossover_ci = crossover_interval(model.replicates[index], model.size_bytes);
}

}  // namespace

Predictions predict_curves(const std::vector<PointResult>& points, const PredictRequest& request) {
  Predictions predictions;
  const double most_asked = *std::ranges::max_element(request.ranks);
  std::vector<RankCurves> groups = rank_curves(points);
  std::vector<PointKey> predictable;
  for (const RankCurves& group : groups)
    if (group.curves.size() >= 2) predictable.push_back(group.key);
  for (RankCurves& group : groups) {
    if (group.curves.size() < 2) {
      predictions.single_rank_count.push_back(group.key);
      continue;
    }
    if (!has_rank_families(group.key.collective)) {
      predictions.no_rank_family.push_back(group.key);
      continue;
    }
    CurvePrediction curve{.key = group.key,
                          .measured = std::move(group.curves),
                          .checks = {},
                          .tail_checks = {},
                          .sizes = {}};
    const CollectiveKind kind = curve.key.collective;
    curve.checks = validate_largest_ranks(kind, curve.measured, request.options);
    const std::vector<const PointResult*> with_samples = tail_points(points, curve.key);
    const TailOptions tail_options{.bootstrap_replicates = request.options.bootstrap_replicates,
                                   .seed = request.options.seed};
    curve.tail_checks = validate_largest_tail(with_samples, tail_options);
    for (const auto& [size, same_elements_as] :
         sizes_to_predict(curve.key, predictable, request.sizes_bytes)) {
      SizePrediction at_size{.model = fit_size_model(kind, curve.measured, size, request.options),
                             .asked = {},
                             .band = {},
                             .crossover_ranks = std::nullopt,
                             .crossover_ci = {},
                             .tail = predict_size_tail(with_samples, size, request.ranks,
                                                       tail_options),
                             .overlap = measured_overlap(points, curve.key, size),
                             .same_elements_as = same_elements_as};
      at_size.model.error_per_doubling = error_per_doubling(curve.checks, size, request.options);
      for (double ranks : request.ranks)
        at_size.asked.push_back(predict_ranks(at_size.model, 0, ranks));
      at_size.band = band_of(at_size.model, std::max<double>(most_asked, at_size.model.max_ranks));
      add_crossover(kind, at_size);
      curve.sizes.push_back(std::move(at_size));
    }
    predictions.curves.push_back(std::move(curve));
  }
  return predictions;
}

}  // namespace collbench
