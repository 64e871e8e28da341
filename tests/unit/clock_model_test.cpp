#include "harness/measure/clock_model.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace collbench {
namespace {

// A client whose clock runs `drift` fast against rank 0's and sits `offset` behind it, talking
// over a link whose one-way delays are a floor plus exponential noise, drawn per direction.
struct SyntheticLink {
  double offset_s;
  double drift;
  double floor_s = 0.4e-6;
  double noise_s = 0.3e-6;
  std::mt19937_64 random{7};

  double root_at(double local_s) const { return local_s + offset_s + drift * local_s; }
  double delay() { return floor_s + std::exponential_distribution<double>(1 / noise_s)(random); }
  std::vector<PingPong> exchanges(double local_start_s, int count) {
    std::vector<PingPong> result;
    double local = local_start_s;
    for (int i = 0; i < count; ++i) {
      PingPong p;
      p.sent_s = local;
      const double out = delay(), back = delay();
      p.root_s = root_at(local + out);
      p.received_s = local + out + back;
      result.push_back(p);
      local = p.received_s + 1e-6;
    }
    return result;
  }
};

TEST(ClockModel, TheShortestRoundTripGivesTheOffset) {
  const std::vector<PingPong> exchanges{{0, 10.000005, 20e-6}, {1, 11.000001, 1.000002}, {2, 12.00003, 2.00005}};
  const ClockFitpoint best = best_fitpoint(exchanges);
  EXPECT_NEAR(best.round_trip_s, 2e-6, 1e-12);
  EXPECT_NEAR(best.offset_s, 10.0, 1e-9);
  EXPECT_DOUBLE_EQ(best.local_s, 1.000001);
}

TEST(ClockModel, RecoversOffsetAndDriftWithinTheNoise) {
  for (const double drift : {0.0, 3e-6, -20e-6, 100e-6}) {
    SCOPED_TRACE(drift);
    SyntheticLink link{.offset_s = -12.5, .drift = drift};
    ClockModel model;
    for (int sync = 0; sync < 20; ++sync)  // one synchronisation every 100 ms for 2 s
      model.add(best_fitpoint(link.exchanges(1000.0 + 0.1 * sync, 20)));
    // The offset of the best exchange is off by at most half its round trip's asymmetry.
    EXPECT_NEAR(model.drift(), drift, 0.5e-6);
    for (const double later : {1002.0, 1002.5}) {
      EXPECT_NEAR(model.to_root(later), link.root_at(later), 0.5e-6) << later;
      EXPECT_NEAR(model.to_local(model.to_root(later)), later, 1e-9);
    }
  }
}

TEST(ClockModel, NoDriftUntilTheHistorySpansTheBaseline) {
  SyntheticLink link{.offset_s = 3.0, .drift = 50e-6};
  ClockModel model;
  model.add(best_fitpoint(link.exchanges(10.0, 20)));
  model.add(best_fitpoint(link.exchanges(10.01, 20)));
  // Two offsets 10 ms apart would give a slope of their noise over 10 ms; it is not used.
  EXPECT_EQ(model.drift(), 0.0);
  EXPECT_NEAR(model.offset_at(10.01), link.root_at(10.01) - 10.01, 0.5e-6);
  model.add(best_fitpoint(link.exchanges(10.01 + ClockModel::kMinDriftBaselineSeconds, 20)));
  EXPECT_NEAR(model.drift(), 50e-6, 2e-6);
}

TEST(ClockModel, AnEmptyModelIsTheIdentity) {
  const ClockModel model;
  EXPECT_TRUE(model.empty());
  EXPECT_EQ(model.to_root(5.0), 5.0);
  EXPECT_EQ(model.to_local(5.0), 5.0);
}

}  // namespace
}  // namespace collbench
