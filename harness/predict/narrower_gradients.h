#pragma once
// `predict`'s what-if of smaller gradients: a curve measured in several datatypes (float beside
// bfloat16 or fp8 on NCCL) is predicted, for each size asked, at the same element count in each
// narrower datatype measured, so that one gradient's time reads in every width it could travel
// in.
#include <optional>
#include <span>
#include <vector>

#include "collectives/datatype.h"
#include "harness/plan/point.h"

namespace collbench {

struct Predictions;
struct CurvePrediction;
struct SizePrediction;

struct SizeToPredict {
  double size_bytes = 0;
  // Set where this size is an asked one's element count in a wider datatype: that datatype.
  std::optional<DataType> same_elements_as;
};

// The sizes `curve` (a key across rank counts) is predicted at: those asked, then each of them
// at the element count of a wider datatype of `curves` otherwise the same, in `curve`'s width.
std::vector<SizeToPredict> sizes_to_predict(const PointKey& curve, std::span<const PointKey> curves,
                                            std::span<const double> asked);

// `size` of `curve`, asked for, as predicted in each narrower datatype, narrowest last.
struct NarrowerGradient {
  DataType datatype;
  const SizePrediction* size;
};
std::vector<NarrowerGradient> narrower_gradients(const Predictions& predictions,
                                                 const CurvePrediction& curve,
                                                 const SizePrediction& size);

}  // namespace collbench
