#include "harness/measure/timer_step.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "harness/measure/host_clock.h"

namespace collbench {
namespace {

constexpr double kOnStepShare = 0.95;
// Both readings of a duration are rounded to whole nanoseconds: it lies within 1 ns of its step.
constexpr double kTolerance = 1.5e-9;
// Steps are tried this finely.
constexpr double kStepResolution = 0.02e-9;
constexpr double kStepsSpanned = 4;

bool durations_lie_on(std::span<const double> durations, double step) {
  const auto on_step = std::count_if(durations.begin(), durations.end(), [&](double duration) {
    return std::abs(duration - step * std::round(duration / step)) <= kTolerance;
  });
  return static_cast<double>(on_step) >= kOnStepShare * static_cast<double>(durations.size());
}

}  // namespace

double reading_step(std::span<const double> durations) {
  if (durations.empty()) return 0;
  const auto [shortest, longest] = std::ranges::minmax(durations);
  const double span = longest - shortest;
  const auto steps = static_cast<int>(
      std::lround((kLargestStepSeconds - kSmallestStepSeconds) / kStepResolution));
  const auto fits = [&](int i) {
    const double step = kLargestStepSeconds - i * kStepResolution;
    return span >= kStepsSpanned * step && durations_lie_on(durations, step);
  };
  // Steps a little off the true one fit too, within the tolerance: the middle of the coarsest
  // band of fitting steps.
  int first = 0;
  while (first <= steps && !fits(first)) ++first;
  if (first > steps) return 0;
  int last = first;
  while (last + 1 <= steps && fits(last + 1)) ++last;
  return kLargestStepSeconds - (first + last) / 2.0 * kStepResolution;
}

double measure_timer_step(Timer& timer) {
  constexpr int kSpins = 2000;
  constexpr double kLongestSpinSeconds = 500e-9;
  constexpr double kGoldenRatioFraction = 0.6180339887498949;
  std::vector<double> durations;
  durations.reserve(kSpins);
  for (int i = 0; i < kSpins; ++i) {
    // Spin lengths spread evenly over the range, so that durations fall anywhere between steps
    // unless the timer puts them on one.
    const double spin = kLongestSpinSeconds * std::fmod(i * kGoldenRatioFraction, 1.0);
    timer.start();
    const double until = steady_seconds() + spin;
    while (steady_seconds() < until) {
    }
    durations.push_back(timer.stop_seconds());
  }
  return reading_step(durations);
}

double job_timer_step(Communicator& world) {
  std::array<double, 1> step{measure_timer_step(*world.make_timer())};
  world.max_over_ranks(step);
  return step[0];
}

}  // namespace collbench
