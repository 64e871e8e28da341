// Which launches of a history share tonight's host state, from their probes.
#include "harness/compare/host_states.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

namespace collbench {
namespace {

// A probe at three moments of rates `gbps` at 4 KiB, 16 KiB, ..., each moment's times `moments`.
HostProbe probe(const std::vector<double>& gbps, const std::vector<double>& moments = {1, 1, 1}) {
  HostProbe p;
  const ProbeMoment order[] = {ProbeMoment::start, ProbeMoment::middle, ProbeMoment::end};
  for (std::size_t m = 0; m < moments.size(); ++m)
    for (std::size_t s = 0; s < gbps.size(); ++s)
      p.readings.push_back({order[m], std::size_t{4096} << (2 * s), gbps[s] * moments[m]});
  return p;
}

// Moments that repeat within 1% at the first size and within 20% at the second: the first's
// tolerance is the floor, the second's four times its noise.
TEST(HostStates, EachSizesToleranceIsFourTimesItsNoiseAndAtLeastTheFloor) {
  std::vector<HostProbe> probes;
  for (int k = 0; k < 5; ++k) {
    HostProbe steady = probe({100}, {1, 1.01, 0.995});
    for (ProbeReading reading : probe({50}, {1, 1.2, 1}).readings) {
      reading.size_bytes = 16384;
      steady.readings.push_back(reading);
    }
    probes.push_back(steady);
  }
  const auto tolerances = state_tolerances(probes);
  EXPECT_DOUBLE_EQ(tolerances.at(4096), kStateFloor);
  EXPECT_NEAR(tolerances.at(16384), kStateSpreads * std::log(1.2) / 1.693, 1e-12);
  // A run of one curve has two moments, start and end: their range is 1.128 sds.
  const std::vector<HostProbe> two{probe({50}, {1, 1.2}), probe({50}, {1.2, 1})};
  EXPECT_NEAR(state_tolerances(two).at(4096), kStateSpreads * std::log(1.2) / 1.128, 1e-12);
}

TEST(HostStates, TwoLaunchesShareAStateWhenEverySizeAgreesWithinItsTolerance) {
  const std::map<std::size_t, double> tolerances{{4096, 0.1}, {16384, 0.5}};
  const HostProbe usual = probe({100, 50});
  // One moment 3x slower at every size: the median of three moments is the launch's state.
  EXPECT_TRUE(same_state(usual, probe({100, 50}, {1, 1 / 3.0, 1}), tolerances));
  EXPECT_FALSE(same_state(usual, probe({100, 50}, {1 / 1.3, 1 / 1.3, 1}), tolerances));
  EXPECT_TRUE(same_state(usual, probe({109, 80}), tolerances));  // 8.6% and 47%
  EXPECT_FALSE(same_state(usual, probe({112, 50}), tolerances));  // 11% at the steady size
  EXPECT_FALSE(same_state(usual, probe({100, 90}), tolerances));  // 59% at the noisy one
  EXPECT_FALSE(same_state(usual, HostProbe{}, tolerances));       // nothing to compare
}

// This VM's other state as its probe saw it: copies that fit the caches 25% slower.
TEST(HostStates, TonightIsMatchedWithTheLaunchesInItsState) {
  std::vector<HostProbe> history;
  for (double cached : {122.0, 124.0, 92.5, 121.0, 93.0})
    history.push_back(probe({cached, 40}, {1, 1.02, 0.99}));
  history.push_back({});
  const HostStateMatch match = match_host_state(history, probe({123, 39}, {1, 0.98, 1}));
  EXPECT_TRUE(match.probed);
  const std::vector<bool> in_state{true, true, false, true, false, false};
  for (std::size_t k = 0; k < in_state.size(); ++k) EXPECT_EQ(match.in_state(k), in_state[k]);
  // the slower state's launches are one state; the unprobed launch one of its own
  EXPECT_EQ(match.state_of, (std::vector<std::size_t>{0, 0, 1, 0, 1, 2}));
  EXPECT_EQ(match.unprobed, 1u);
  EXPECT_EQ(match.matched(), 3u);
  EXPECT_EQ(match.host_changed(), "");
  EXPECT_EQ(host_state_status(match), "matched");
}

TEST(HostStates, FewerThanTwoLaunchesOfTonightsStateIsAHostChange) {
  const std::vector<HostProbe> history{probe({100}), probe({200}), probe({210})};
  const HostStateMatch match = match_host_state(history, probe({101}));
  EXPECT_EQ(match.matched(), 1u);
  EXPECT_EQ(host_state_status(match), "host_changed");
  EXPECT_NE(match.host_changed().find("agrees with 1 of its 3 probed launches"), std::string::npos)
      << match.host_changed();
}

TEST(HostStates, WithoutProbesTheHistoryIsOneState) {
  const std::vector<HostProbe> history{{}, {}, {}};
  const HostStateMatch old_files = match_host_state(history, probe({100}));
  EXPECT_FALSE(old_files.probed);
  EXPECT_EQ(old_files.matched(), 3u);
  EXPECT_EQ(host_state_status(old_files), "no probe");
  const std::vector<HostProbe> probed{probe({100}), probe({300})};
  const HostStateMatch tonight_old = match_host_state(probed, HostProbe{});
  EXPECT_FALSE(tonight_old.probed);
  EXPECT_EQ(tonight_old.matched(), 2u);
}

TEST(HostStates, ABaseOutsideNewsStateIsAHostChange) {
  const std::vector<HostProbe> history{probe({100}), probe({100})};
  EXPECT_TRUE(match_host_state(history, probe({100}), probe({104})).base_in_state);
  const HostStateMatch match = match_host_state(history, probe({100}), probe({130}));
  EXPECT_FALSE(match.base_in_state);
  EXPECT_EQ(host_state_status(match), "host_changed");
  EXPECT_NE(match.host_changed().find("BASE"), std::string::npos);
}

}  // namespace
}  // namespace collbench
