// NCCL 2.28.9's rules for a pinned algorithm and protocol, which decide the rows a tuned pass
// skips (and says why) before NCCL would fail one mid-sweep.
#include <gtest/gtest.h>

#include "backends/nccl/algorithm_rules.h"

namespace collbench::nccl {
namespace {

using enum CollectiveKind;

bool runs(const Tuning& tuning, CollectiveKind kind, DataType type, ReduceOp op) {
  return why_ineligible(tuning, kind, type, op).empty();
}

TEST(AlgorithmRules, NcclsOwnChoiceRunsEverything) {
  EXPECT_TRUE(runs({}, reduce_scatter, DataType::float8_e4m3, ReduceOp::avg));
  EXPECT_TRUE(runs({"", "LL"}, allgather, DataType::int8, ReduceOp::sum));
}

TEST(AlgorithmRules, EachAlgorithmRunsItsCollectivesOnly) {
  EXPECT_EQ(why_ineligible({"Tree", ""}, allgather, DataType::float32, ReduceOp::sum),
            "Tree has no allgather");
  EXPECT_TRUE(runs({"Tree", "LL128"}, allreduce, DataType::float32, ReduceOp::sum));
  EXPECT_FALSE(runs({"PAT", ""}, allreduce, DataType::float32, ReduceOp::sum));
  EXPECT_TRUE(runs({"Ring", "LL"}, reduce_scatter, DataType::int64, ReduceOp::prod));
}

TEST(AlgorithmRules, NvlsPatAndCollnetRunSimpleOnly) {
  for (const char* algorithm : {"NVLS", "PAT", "CollnetDirect"}) {
    EXPECT_EQ(why_ineligible({algorithm, "LL"}, allgather, DataType::float32, ReduceOp::sum),
              std::string(algorithm) + " runs the Simple protocol only");
    EXPECT_TRUE(runs({algorithm, "Simple"}, allgather, DataType::float32, ReduceOp::sum));
  }
}

TEST(AlgorithmRules, NvlsReducesWhatTheSwitchReduces) {
  for (const char* algorithm : {"NVLS", "NVLSTree"}) {
    const Tuning nvls{algorithm, ""};
    EXPECT_TRUE(runs(nvls, allreduce, DataType::float32, ReduceOp::sum));
    EXPECT_EQ(why_ineligible(nvls, allreduce, DataType::float32, ReduceOp::max),
              std::string(algorithm) + " cannot reduce float with max");
    EXPECT_TRUE(runs(nvls, allreduce, DataType::bfloat16, ReduceOp::max));
    EXPECT_TRUE(runs(nvls, allreduce, DataType::int32, ReduceOp::min));
    EXPECT_FALSE(runs(nvls, allreduce, DataType::int8, ReduceOp::sum));
    EXPECT_FALSE(runs(nvls, allreduce, DataType::float8_e4m3, ReduceOp::sum));
    EXPECT_FALSE(runs(nvls, allreduce, DataType::float16, ReduceOp::avg));
  }
  EXPECT_TRUE(runs({"NVLS", ""}, allgather, DataType::int8, ReduceOp::sum));  // no reduction
  EXPECT_FALSE(runs({"NVLS", ""}, reduce_scatter, DataType::uint8, ReduceOp::max));
}

// NCCL 2.28.9, src/enqueue.cc, topoGetAlgoInfo: PAT is skipped for a reduce-scatter whose op is
// ncclDevPreMulSum or ncclDevSumPostDiv, which avg becomes on floats and on integers.
TEST(AlgorithmRules, PatHasNoScaledSumOfAnyType) {
  EXPECT_EQ(why_ineligible({"PAT", ""}, reduce_scatter, DataType::float32, ReduceOp::avg),
            "PAT has no scaled sum (avg of float: a pre-multiplied sum)");
  EXPECT_EQ(why_ineligible({"PAT", ""}, reduce_scatter, DataType::int32, ReduceOp::avg),
            "PAT has no scaled sum (avg of int32: a sum divided after)");
  EXPECT_TRUE(runs({"PAT", ""}, allgather, DataType::int32, ReduceOp::avg));
  EXPECT_TRUE(runs({"PAT", ""}, reduce_scatter, DataType::float32, ReduceOp::sum));
}

}  // namespace
}  // namespace collbench::nccl
