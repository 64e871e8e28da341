#include "harness/predict/hierarchy_against_flat.h"

#include <gtest/gtest.h>

namespace collbench {
namespace {

PointResult point(CollectiveKind collective, std::size_t size_bytes, double median_s,
                  DataType datatype = DataType::float32) {
  PointResult result;
  result.key.collective = collective;
  result.key.datatype = datatype;
  result.key.nranks = 3;
  result.key.mode = Mode::latency;
  result.key.size_bytes = size_bytes;
  result.key.count = size_bytes / size_of(datatype);
  result.summary.median = median_s;
  result.summary.ci_low = 0.9 * median_s;
  result.summary.ci_high = 1.1 * median_s;
  return result;
}

TEST(HierarchyAgainstFlat, PairsEachSizeWithTheFlatOneItWasRoundedDownFrom) {
  // 3 ranks of floats: 1 KiB runs 1,020 B hierarchically, 4 KiB 4,092 B.
  const std::vector<PointResult> points{
      point(CollectiveKind::allreduce, 4096, 2e-6),
      point(CollectiveKind::allreduce_hier, 4092, 1e-6),
      point(CollectiveKind::allreduce, 1024, 1e-6),
      point(CollectiveKind::allreduce_hier, 1020, 1e-6),
      point(CollectiveKind::allreduce_hier, 2040, 1e-6),  // no flat one within a float a rank
      point(CollectiveKind::allreduce, 2048, 1e-6, DataType::float64),  // another curve
  };
  const auto comparisons = hierarchy_against_flat(points);
  ASSERT_EQ(comparisons.size(), 1u);
  EXPECT_EQ(comparisons[0].flat_curve.collective, CollectiveKind::allreduce);
  ASSERT_EQ(comparisons[0].sizes.size(), 2u);
  EXPECT_EQ(comparisons[0].sizes[0].size_bytes, 1024u);
  EXPECT_FALSE(comparisons[0].sizes[0].faster);
  EXPECT_EQ(comparisons[0].sizes[1].size_bytes, 4096u);
  EXPECT_TRUE(comparisons[0].sizes[1].faster);
  EXPECT_EQ(comparisons[0].faster_from_bytes(), 4096u);
}

}  // namespace
}  // namespace collbench
