#include "harness/predict/narrower_gradients.h"

#include <algorithm>

#include "harness/predict/curve_predictions.h"

namespace collbench {
namespace {

bool differ_in_datatype_only(PointKey a, PointKey b) {
  if (a.datatype == b.datatype) return false;
  a.datatype = b.datatype;
  return a == b;
}

}  // namespace

std::vector<SizeToPredict> sizes_to_predict(const PointKey& curve, std::span<const PointKey> curves,
                                            std::span<const double> asked) {
  std::vector<SizeToPredict> sizes;
  for (double size : asked) sizes.push_back({size, std::nullopt});
  const auto width = static_cast<double>(size_of(curve.datatype));
  for (const PointKey& wider : curves) {
    if (!differ_in_datatype_only(curve, wider) ||
        size_of(wider.datatype) <= size_of(curve.datatype))
      continue;
    for (double size : asked) {
      const double same_elements = size / static_cast<double>(size_of(wider.datatype)) * width;
      if (std::ranges::none_of(sizes, [&](const SizeToPredict& s) {
            return s.size_bytes == same_elements;
          }))
        sizes.push_back({same_elements, wider.datatype});
    }
  }
  return sizes;
}

std::vector<NarrowerGradient> narrower_gradients(const Predictions& predictions,
                                                 const CurvePrediction& curve,
                                                 const SizePrediction& size) {
  std::vector<NarrowerGradient> narrower;
  const auto width = static_cast<double>(size_of(curve.key.datatype));
  for (const CurvePrediction& other : predictions.curves) {
    if (!differ_in_datatype_only(curve.key, other.key) ||
        size_of(other.key.datatype) >= size_of(curve.key.datatype))
      continue;
    const double same_elements =
        size.model.size_bytes / width * static_cast<double>(size_of(other.key.datatype));
    const auto found = std::ranges::find_if(other.sizes, [&](const SizePrediction& s) {
      return s.model.size_bytes == same_elements;
    });
    if (found != other.sizes.end()) narrower.push_back({other.key.datatype, &*found});
  }
  std::ranges::stable_sort(narrower, std::greater{},
                           [](const NarrowerGradient& n) { return size_of(n.datatype); });
  return narrower;
}

}  // namespace collbench
