#include "harness/predict/rank_prediction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/unit/synthetic_ranks.h"

namespace collbench {
namespace {

using synthetic::curves_of;
using synthetic::TimeModel;

constexpr double kGradient = 25.0 * (1 << 20);

// The prediction the command makes: the families around the size, widened by the out-of-sample
// error of the largest rank count.
RankPrediction predict(CollectiveKind kind, const std::vector<RankCurve>& curves, double size,
                       double ranks, std::uint64_t seed) {
  const PredictOptions options{.bootstrap_replicates = 200, .seed = seed};
  SizeModel model = fit_size_model(kind, curves, size, options);
  model.error_per_doubling =
      error_per_doubling(validate_largest_ranks(kind, curves, options), size, options);
  return predict_ranks(model, 0, ranks);
}

int seeds_holding_the_truth(CollectiveKind kind, const TimeModel& truth, double size,
                            double ranks) {
  int inside = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const RankPrediction prediction =
        predict(kind, curves_of(truth, {2, 3, 4, 8}, 0.03, seed), size, ranks, seed);
    const double planted = truth(size, ranks);
    inside += prediction.time_ci.low <= planted && planted <= prediction.time_ci.high;
  }
  return inside;
}

TEST(RankPrediction, HoldsThePlantedRingAllreduceAtAThousandRanksOverSeeds) {
  EXPECT_GE(seeds_holding_the_truth(CollectiveKind::allreduce, synthetic::ring_allreduce,
                                    kGradient, 1024),
            95);
}

TEST(RankPrediction, HoldsThePlantedRingAllreduceOfSmallMessagesOverSeeds) {
  EXPECT_GE(
      seeds_holding_the_truth(CollectiveKind::allreduce, synthetic::ring_allreduce, 4096, 512),
      95);
}

TEST(RankPrediction, HoldsThePlantedTreeAllreduceOverSeeds) {
  EXPECT_GE(seeds_holding_the_truth(CollectiveKind::allreduce, synthetic::tree_allreduce,
                                    kGradient, 1024),
            95);
}

TEST(RankPrediction, HoldsThePlantedRingAllgatherOverSeeds) {
  EXPECT_GE(seeds_holding_the_truth(CollectiveKind::allgather, synthetic::ring_allgather,
                                    kGradient, 1024),
            95);
}

TEST(RankPrediction, ExactDataPredictsExactlyWithTheTermsSplit) {
  const auto curves = curves_of(synthetic::ring_allreduce, {2, 3, 4});
  const RankPrediction prediction = predict(CollectiveKind::allreduce, curves, kGradient, 1024, 1);
  const double latency = 2 * 1023 * synthetic::kAlpha;
  const double bandwidth = 2.0 * 1023 / 1024 * kGradient * synthetic::kBeta;
  EXPECT_NEAR(prediction.latency_s, latency, 1e-6 * latency);
  EXPECT_NEAR(prediction.bandwidth_s, bandwidth, 1e-6 * bandwidth);
  EXPECT_NEAR(prediction.time_s, latency + bandwidth, 1e-6 * (latency + bandwidth));
  EXPECT_DOUBLE_EQ(prediction.doublings_outside, 8);
}

TEST(RankPrediction, InsideTheMeasuredRankCountsNothingIsExtrapolated) {
  const auto curves = curves_of(synthetic::ring_allreduce, {2, 3, 4, 8}, 0.03, 7);
  const RankPrediction prediction = predict(CollectiveKind::allreduce, curves, kGradient, 6, 7);
  EXPECT_EQ(prediction.doublings_outside, 0);
  EXPECT_EQ(prediction.widening, 0);
}

// The largest rank count runs 30% slower than the family of the smaller ones says (a slower
// fabric past one node): the out-of-sample check sees it, and the prediction at 1,024 ranks
// widens by that error for each doubling past the measured ones.
TEST(RankPrediction, AMissedLargestRankCountWidensTheExtrapolation) {
  std::vector<RankCurve> curves = curves_of(synthetic::ring_allreduce, {2, 3, 4, 8}, 0.01, 3);
  for (double& time : curves.back().times) time *= 1.3;
  const PredictOptions options;
  const auto checks = validate_largest_ranks(CollectiveKind::allreduce, curves, options);
  ASSERT_EQ(checks.size(), curves.back().sizes.size());
  for (const OutOfSampleCheck& check : checks) {
    EXPECT_EQ(check.fitted_up_to, 4);
    EXPECT_EQ(check.ranks, 8);
    EXPECT_NEAR(check.relative_error(), 1 / 1.3 - 1, 0.05) << check.size_bytes;
  }
  const double per_doubling = error_per_doubling(checks, kGradient, options);
  EXPECT_NEAR(per_doubling, 1 - 1 / 1.3, 0.05);
  const RankPrediction prediction =
      predict(CollectiveKind::allreduce, curves, kGradient, 1024, 3);
  EXPECT_NEAR(prediction.widening, 7 * per_doubling, 1e-9);
  EXPECT_GT(prediction.time_ci.high / prediction.time_ci.low, (1 + 7 * per_doubling) * (1 + 7 * per_doubling));
}

TEST(RankPrediction, TwoRankCountsCannotBeValidated) {
  const auto curves = curves_of(synthetic::ring_allreduce, {2, 4}, 0.03, 5);
  const PredictOptions options;
  EXPECT_TRUE(validate_largest_ranks(CollectiveKind::allreduce, curves, options).empty());
  EXPECT_TRUE(std::isnan(error_per_doubling({}, kGradient, options)));
}

TEST(RankPrediction, NoReplicateTakesLessThanNoTime) {
  SizeModel model = fit_size_model(CollectiveKind::allreduce,
                                   curves_of(synthetic::ring_allreduce, {2, 3, 4}), 4096, {});
  std::vector<FamilyCoefficients>& replicates = model.replicates.at(0);
  for (std::size_t i = 0; i < replicates.size(); i += 2) replicates[i].alpha_s = -1;
  const RankPrediction prediction = predict_ranks(model, 0, 64);
  EXPECT_EQ(prediction.time_ci.low, 0);
  EXPECT_GT(prediction.time_ci.high, 0);
}

TEST(RankPrediction, FitsTheSizesNearestTheOneAsked) {
  const auto curves = curves_of(synthetic::ring_allreduce, {2, 3, 4});
  const SizeModel model = fit_size_model(CollectiveKind::allreduce, curves, 3000, {});
  EXPECT_EQ(model.window, (std::vector<double>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(model.min_ranks, 2);
  EXPECT_EQ(model.max_ranks, 4);
}

}  // namespace
}  // namespace collbench
