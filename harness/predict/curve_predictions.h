#pragma once
// `collbench predict`'s analysis of a set of points: every curve measured at two rank counts or
// more, predicted at the rank counts and sizes asked for (rank_prediction.h), with the
// out-of-sample check of its largest rank count and the ring's crossover p*; and, where the
// points hold per-rank samples, its slowest-of-p tail (curve_tails.h).
#include <optional>
#include <vector>

#include "harness/fit/curve_fits.h"
#include "harness/predict/curve_tails.h"
#include "harness/predict/measured_overlap.h"
#include "harness/predict/narrower_gradients.h"
#include "harness/predict/rank_prediction.h"

namespace collbench {

struct PredictRequest {
  std::vector<double> ranks;
  std::vector<double> sizes_bytes;
  PredictOptions options;
};

struct SizePrediction {
  SizeModel model;
  std::vector<RankPrediction> asked;  // the chosen family at each rank count asked for
  // The chosen family from the fewest rank counts measured to the most asked for, eight points
  // a doubling: the band a figure draws.
  std::vector<RankPrediction> band;
  // The reference family's (the ring's) p* = n·beta/alpha for this size, and its 95% interval (its replicates').
  std::optional<double> crossover_ranks;
  Interval crossover_ci;
  std::optional<SizeTail> tail;  // nullopt without per-rank samples
  std::optional<MeasuredOverlap> overlap;  // nullopt where no point was run beside a load
  // Set where the size was not asked for but is an asked one in a wider datatype, at the same
  // element count (narrower_gradients.h): that datatype.
  std::optional<DataType> same_elements_as;
};

struct CurvePrediction {
  PointKey key;  // nranks 0
  std::vector<RankCurve> measured;
  std::vector<OutOfSampleCheck> checks;  // validate_largest_ranks
  std::vector<TailCheck> tail_checks;    // validate_largest_tail
  std::vector<SizePrediction> sizes;     // per size asked for
};

struct Predictions {
  std::vector<CurvePrediction> curves;
  std::vector<PointKey> single_rank_count;  // curves measured at one rank count: not predicted
  std::vector<PointKey> no_rank_family;     // whose time does not grow with p: not predicted
};

Predictions predict_curves(const std::vector<PointResult>& points, const PredictRequest& request);

}  // namespace collbench
