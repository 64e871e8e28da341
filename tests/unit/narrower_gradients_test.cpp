#include "harness/predict/narrower_gradients.h"

#include <gtest/gtest.h>

#include <vector>

namespace collbench {
namespace {

PointKey curve(DataType datatype, ReduceOp op = ReduceOp::sum) {
  PointKey key;
  key.backend = "nccl";
  key.datatype = datatype;
  key.op = op;
  key.mode = Mode::latency;
  return key;
}

TEST(SizesToPredict, AddEachAskedSizeAtTheElementCountOfEveryWiderType) {
  const std::vector<PointKey> curves{curve(DataType::float32), curve(DataType::float64),
                                     curve(DataType::bfloat16),
                                     curve(DataType::float32, ReduceOp::max)};
  const std::vector<double> asked{1 << 20};
  const auto sizes = sizes_to_predict(curve(DataType::bfloat16), curves, asked);
  ASSERT_EQ(sizes.size(), 3u);
  EXPECT_EQ(sizes[0].size_bytes, 1 << 20);
  EXPECT_FALSE(sizes[0].same_elements_as);
  EXPECT_EQ(sizes[1].size_bytes, 1 << 19);  // a float gradient of 1 MiB, in bfloat16
  EXPECT_EQ(sizes[1].same_elements_as, DataType::float32);
  EXPECT_EQ(sizes[2].size_bytes, 1 << 18);  // a double gradient
  EXPECT_EQ(sizes[2].same_elements_as, DataType::float64);
}

TEST(SizesToPredict, TheWidestTypeAndAnotherOpAddNothing) {
  const std::vector<PointKey> curves{curve(DataType::float64), curve(DataType::float32),
                                     curve(DataType::bfloat16, ReduceOp::max)};
  const std::vector<double> asked{1 << 20, 1 << 22};
  EXPECT_EQ(sizes_to_predict(curve(DataType::float64), curves, asked).size(), 2u);
  EXPECT_EQ(sizes_to_predict(curve(DataType::bfloat16, ReduceOp::max), curves, asked).size(), 2u);
}

TEST(SizesToPredict, ASizeAlreadyAskedIsNotAddedTwice) {
  const std::vector<PointKey> curves{curve(DataType::float32), curve(DataType::bfloat16)};
  const std::vector<double> asked{1 << 20, 1 << 19};
  const auto sizes = sizes_to_predict(curve(DataType::bfloat16), curves, asked);
  ASSERT_EQ(sizes.size(), 3u);
  EXPECT_EQ(sizes[2].size_bytes, 1 << 18);
}

}  // namespace
}  // namespace collbench
