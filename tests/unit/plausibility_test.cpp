#include "harness/plan/plausibility.h"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/plan/point.h"

namespace collbench {
namespace {

// Copies of 4 KiB at 40 GB/s, of 64 KiB at 20, of 1 MiB at 10.
const PlausibilityBound kBound{.copy = {{4096, 40}, {65536, 20}, {1 << 20, 10}},
                               .empty_call_s = 40e-9};

PointResult point(int nranks, double busbw_gbps, double median_s, std::size_t bytes = 1 << 20) {
  PointResult p;
  p.key.nranks = nranks;
  p.key.size_bytes = bytes;
  p.busbw_gbps = busbw_gbps;
  p.summary.median = median_s;
  return p;
}

TEST(Plausibility, BusBandwidthPastTheMarginOverTheCopyRateIsImplausible) {
  EXPECT_EQ(judge_plausibility(point(2, 40, 1e-6), kBound), Implausible::no);  // at 4x: allowed
  EXPECT_EQ(judge_plausibility(point(2, 40.1, 1e-6), kBound), Implausible::busbw_above_copy);
  EXPECT_EQ(judge_plausibility(point(2, 1500, 4e-8), kBound), Implausible::busbw_above_copy);
}

// A point is held to the copy of the largest size measured up to its own: a smaller one stays
// in a nearer cache and runs faster; below the smallest, to the smallest.
TEST(Plausibility, APointIsHeldToTheCopyOfItsSize) {
  EXPECT_DOUBLE_EQ(kBound.copy_gbps_for(8), 40);
  EXPECT_DOUBLE_EQ(kBound.copy_gbps_for(4096), 40);
  EXPECT_DOUBLE_EQ(kBound.copy_gbps_for(65535), 40);
  EXPECT_DOUBLE_EQ(kBound.copy_gbps_for(65536), 20);
  EXPECT_DOUBLE_EQ(kBound.copy_gbps_for(std::size_t{1} << 30), 10);
  EXPECT_EQ(judge_plausibility(point(2, 150, 1e-6, 32768), kBound), Implausible::no);
  EXPECT_EQ(judge_plausibility(point(2, 150, 1e-6, 65536), kBound), Implausible::busbw_above_copy);
  EXPECT_TRUE(std::isnan(PlausibilityBound{}.copy_gbps_for(4096)));
}

TEST(Plausibility, ATimePastTheMarginBelowAnEmptyCallIsImplausible) {
  EXPECT_EQ(judge_plausibility(point(2, 0.1, 10e-9), kBound), Implausible::no);  // a quarter
  EXPECT_EQ(judge_plausibility(point(2, 0.1, 9.9e-9), kBound), Implausible::time_below_empty_call);
}

// One rank moves nothing between ranks (a one-rank broadcast may not even copy), and a run
// without a bound (or a file before it) judges nothing.
TEST(Plausibility, OneRankAndAnUnknownBoundAreNeverJudged) {
  EXPECT_EQ(judge_plausibility(point(1, 1e6, 1e-9), kBound), Implausible::no);
  EXPECT_EQ(judge_plausibility(point(2, 1e6, 1e-9), PlausibilityBound{}), Implausible::no);
}

TEST(Plausibility, MarksReadBackByName) {
  for (Implausible mark : {Implausible::no, Implausible::busbw_above_copy,
                           Implausible::time_below_empty_call})
    EXPECT_EQ(parse_implausible(name(mark)), mark);
  EXPECT_EQ(name(Implausible::no), "");
  EXPECT_FALSE(parse_implausible("fast"));
}

TEST(Plausibility, TheReasonSaysWhatWasPast) {
  PointResult p = point(2, 1427, 4e-8);
  p.implausible = Implausible::busbw_above_copy;
  EXPECT_EQ(implausible_reason(p, kBound),
            "busbw 1427 GB/s is more than 4x the fastest copy of its size here (10 GB/s)");
  EXPECT_EQ(implausible_reason(p),  // a verdict on a file, without its bound
            "busbw 1427 GB/s is more than 4x the fastest copy of its size here");
  p.implausible = Implausible::time_below_empty_call;
  EXPECT_EQ(implausible_reason(p, kBound),
            "0.04 us is less than 1/4 of a call that moves nothing (0.04 us)");
  p.implausible = Implausible::no;
  EXPECT_EQ(implausible_reason(p), "");
}

}  // namespace
}  // namespace collbench
