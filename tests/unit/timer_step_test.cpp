#include "harness/measure/timer_step.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backends/steady_timer.h"

namespace collbench {
namespace {

// Durations of 0 to 500 ns as a clock reads them: both readings fall on its grid of `step` (at a
// random phase), and each is then rounded to a whole nanosecond.
std::vector<double> read_on_grid(double step, unsigned seed, int count = 2000) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> duration(0, 500e-9), phase(0, 1);
  const auto reading = [&](double t) { return std::round(std::floor(t / step) * step * 1e9); };
  std::vector<double> durations;
  for (int i = 0; i < count; ++i) {
    const double start = 1e-3 + phase(engine) * step * 1000;
    durations.push_back((reading(start + duration(engine)) - reading(start)) * 1e-9);
  }
  return durations;
}

TEST(TimerStepTest, FindsTheStepOfAClockThatMovesInSteps) {
  for (unsigned seed = 0; seed < 20; ++seed) {
    // kvm-clock's on a 2.096 GHz EPYC, a step in whole nanoseconds, and a coarse one: each to 1%.
    EXPECT_NEAR(reading_step(read_on_grid(10.019e-9, seed)), 10.019e-9, 0.1e-9) << seed;
    EXPECT_NEAR(reading_step(read_on_grid(32e-9, seed)), 32e-9, 0.32e-9) << seed;
    EXPECT_NEAR(reading_step(read_on_grid(80e-9, seed)), 80e-9, 0.8e-9) << seed;
  }
}

TEST(TimerStepTest, ANanosecondClockHasNoStep) {
  for (unsigned seed = 0; seed < 20; ++seed)
    EXPECT_EQ(reading_step(read_on_grid(1e-9, seed)), 0) << seed;
}

TEST(TimerStepTest, OneDurationInTwentyOffTheGridDoesNotHideTheStep) {
  std::vector<double> durations = read_on_grid(10e-9, 7);
  for (std::size_t i = 0; i < durations.size(); i += 25) durations[i] += 4.7e-9;
  EXPECT_NEAR(reading_step(durations), 10e-9, 0.1e-9);
}

TEST(TimerStepTest, DurationsThatSpanTooLittleTellNoStep) {
  EXPECT_EQ(reading_step(std::vector<double>(100, 20e-9)), 0);
  EXPECT_EQ(reading_step({}), 0);
}

TEST(TimerStepTest, ThisMachinesSteadyClockHasAStepItsDurationsLieOn) {
  SteadyTimer timer;
  const double step = measure_timer_step(timer);
  EXPECT_TRUE(step == 0 || (step >= kSmallestStepSeconds && step <= kLargestStepSeconds)) << step;
}

}  // namespace
}  // namespace collbench
