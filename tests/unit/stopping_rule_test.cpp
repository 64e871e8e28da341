#include "harness/stats/stopping_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "harness/stats/reading_step.h"
#include "harness/stats/stop_reason.h"
#include "harness/stats/summary.h"

namespace collbench {
namespace {

// A power of two, so elapsed time summed sample by sample is exact and thresholds land on a
// known sample.
constexpr double kConstantSample = 1.0 / 1024;
constexpr std::size_t kSafetyCap = 10'000'000;

struct Outcome {
  std::size_t samples = 0;
  double elapsed_s = 0;
  double last_sample_s = 0;
  std::optional<StopReason> reason;
};

// Feeds the stream to the rule as the harness does: each sample advances the clock by itself.
Outcome run_until_stop(const StoppingRule& rule, std::optional<double> time_left_s,
                       const std::function<double()>& next_sample,
                       std::vector<double> earlier_round_medians = {}) {
  // Each earlier round converged to its share of the target: a 1.7% interval.
  std::vector<RoundMedian> earlier_rounds;
  for (double median : earlier_round_medians)
    earlier_rounds.push_back({median, log_variance_of({median / 1.017, median * 1.017})});
  StoppingState state(rule, time_left_s, earlier_rounds);
  Outcome outcome;
  while (state.samples() < kSafetyCap) {
    outcome.last_sample_s = next_sample();
    outcome.elapsed_s += outcome.last_sample_s;
    state.add(outcome.last_sample_s);
    outcome.reason = state.decide(outcome.elapsed_s);
    if (outcome.reason) break;
  }
  outcome.samples = state.samples();
  return outcome;
}

double constant_sample() { return kConstantSample; }

// The defaults with the named fields changed, spelled out where each test reads it.
StoppingRule adaptive_rule(std::size_t min_samples, double min_time_s, double target_ci,
                           double max_time_s) {
  StoppingRule rule;
  rule.min_samples = min_samples;
  rule.min_time_s = min_time_s;
  rule.target_ci = target_ci;
  rule.max_time_s = max_time_s;
  return rule;
}

StoppingRule rule_with_max_time(double max_time_s) {
  StoppingRule rule;
  rule.max_time_s = max_time_s;
  return rule;
}

StoppingRule fixed_rule(std::size_t samples) {
  StoppingRule rule;
  rule.fixed_samples = samples;
  return rule;
}

// Lognormal around 1 ms with a 30% spread. Box-Muller on raw mt19937 words rather than
// std::lognormal_distribution, whose algorithm differs between standard libraries.
class NoisyStream {
 public:
  explicit NoisyStream(std::uint32_t seed) : engine_(seed) {}

  double operator()() {
    constexpr double kMedian = 1e-3;
    constexpr double kSpread = 0.3;
    return kMedian * std::exp(kSpread * standard_normal());
  }

 private:
  double uniform_open() { return (static_cast<double>(engine_()) + 0.5) / 4294967296.0; }

  double standard_normal() {
    return std::sqrt(-2 * std::log(uniform_open())) *
           std::cos(2 * std::numbers::pi * uniform_open());
  }

  std::mt19937 engine_;
};

TEST(StopReasonName, RoundTripsEveryReason) {
  for (StopReason reason : {StopReason::converged, StopReason::fixed_count,
                            StopReason::max_time, StopReason::time_limit,
                            StopReason::round_noise}) {
    EXPECT_EQ(parse_stop_reason(name(reason)), reason);
  }
  EXPECT_EQ(name(StopReason::converged), "converged");
  EXPECT_EQ(name(StopReason::fixed_count), "fixed_count");
  EXPECT_EQ(name(StopReason::max_time), "max_time");
  EXPECT_EQ(name(StopReason::time_limit), "time_limit");
  EXPECT_EQ(name(StopReason::round_noise), "round_noise");
}

TEST(StopReasonName, UnknownTextParsesToNothing) {
  EXPECT_EQ(parse_stop_reason("Converged"), std::nullopt);
  EXPECT_EQ(parse_stop_reason(""), std::nullopt);
}

TEST(StoppingState, KeepsCountOfSamples) {
  StoppingState state(StoppingRule{}, std::nullopt);
  EXPECT_EQ(state.samples(), 0u);
  state.add(2);
  state.add(1);
  EXPECT_EQ(state.samples(), 2u);
}

// min_time of 0.125 s is passed at sample 128 of 1/1024 s, later than min_samples.
TEST(StoppingState, ConstantStreamConvergesWhenMinTimeIsPassed) {
  const StoppingRule rule = adaptive_rule(10, 0.125, 0.01, 1.0);
  const Outcome outcome = run_until_stop(rule, std::nullopt, constant_sample);
  EXPECT_EQ(outcome.reason, StopReason::converged);
  EXPECT_EQ(outcome.samples, 128u);
}

TEST(StoppingState, ConstantStreamConvergesAtMinSamples) {
  const StoppingRule rule = adaptive_rule(200, 0.125, 0.01, 1.0);
  const Outcome outcome = run_until_stop(rule, std::nullopt, constant_sample);
  EXPECT_EQ(outcome.reason, StopReason::converged);
  EXPECT_EQ(outcome.samples, 200u);
}

// With fewer than 6 samples the interval cannot cover the median at 95%, however narrow.
TEST(StoppingState, ConvergenceWaitsForAnIntervalThatCovers) {
  const StoppingRule rule = adaptive_rule(3, 0, 0.01, 1.0);
  const Outcome outcome = run_until_stop(rule, std::nullopt, constant_sample);
  EXPECT_EQ(outcome.reason, StopReason::converged);
  EXPECT_EQ(outcome.samples, 6u);
}

// A 30% spread needs thousands of samples for a 1% interval; 1 s of 1 ms samples is ~1000.
TEST(StoppingState, NoisyStreamRunsToMaxTime) {
  for (std::uint32_t seed : {1u, 2u, 3u, 42u, 2024u}) {
    const StoppingRule rule{};
    const Outcome outcome = run_until_stop(rule, std::nullopt, NoisyStream(seed));
    EXPECT_EQ(outcome.reason, StopReason::max_time) << "seed " << seed;
    EXPECT_GE(outcome.elapsed_s, rule.max_time_s) << "seed " << seed;
    EXPECT_LT(outcome.elapsed_s - outcome.last_sample_s, rule.max_time_s) << "seed " << seed;
  }
}

// At 5% the same spread needs roughly (1.96 * 1.25 * 0.3 / 0.05)^2 ~ 220 samples.
TEST(StoppingState, NoisyStreamConvergesOnceIntervalIsNarrowEnough) {
  for (std::uint32_t seed : {1u, 2u, 3u, 42u, 2024u}) {
    const StoppingRule rule = adaptive_rule(10, 0, 0.05, 1.0);
    const Outcome outcome = run_until_stop(rule, std::nullopt, NoisyStream(seed));
    EXPECT_EQ(outcome.reason, StopReason::converged) << "seed " << seed;
    EXPECT_GT(outcome.samples, 100u) << "seed " << seed;
    EXPECT_LT(outcome.samples, 500u) << "seed " << seed;
  }
}

// 0.6 us with a 1% spread read in 10 ns steps, as kvm-clock reads a small allreduce: every
// sample is 0.59, 0.60 or 0.61 us.
std::function<double()> stepped_stream(std::uint32_t seed) {
  return [noisy = NoisyStream(seed)]() mutable {
    constexpr double kStep = 10e-9;
    const double sample = 0.6e-6 * std::pow(noisy() / 1e-3, 1.0 / 30);  // the 30% spread at 1%
    return kStep * std::round(sample / kStep);
  };
}

// The samples a rule took of `stream` before it stopped, sorted, and why it stopped.
std::pair<std::vector<double>, std::optional<StopReason>> sorted_until_stop(
    const StoppingRule& rule, const std::function<double()>& stream) {
  StoppingState state(rule, std::nullopt);
  std::vector<double> taken;
  std::optional<StopReason> reason;
  double elapsed = 0;
  while (!reason && taken.size() < kSafetyCap) {
    taken.push_back(stream());
    elapsed += taken.back();
    state.add(taken.back());
    reason = state.decide(elapsed);
  }
  std::sort(taken.begin(), taken.end());
  return {taken, reason};
}

// A target finer than the timer reads (0.5%, 3 ns): told nothing, the rule stops on order
// statistics that tie, an interval of 0%; told the step, it stops once the interval widened by
// half a step each side is within two steps (3.3%).
TEST(StoppingState, APointReadInStepsIsHeldToTwoStepsNotToATie) {
  constexpr double kStep = 10e-9;
  for (std::uint32_t seed : {1u, 2u, 3u, 42u, 2024u}) {
    StoppingRule rule = adaptive_rule(10, 0, 0.005, 1e9);
    const auto [blind, blind_reason] = sorted_until_stop(rule, stepped_stream(seed));
    EXPECT_EQ(blind_reason, StopReason::converged) << "seed " << seed;
    const MedianInterval tie = median_interval_of_sorted(blind);
    EXPECT_EQ(tie.low, tie.high) << "seed " << seed;

    rule.sample_step_s = kStep;
    const auto [taken, reason] = sorted_until_stop(rule, stepped_stream(seed));
    EXPECT_EQ(reason, StopReason::converged) << "seed " << seed;
    const MedianInterval bounds = median_interval_of_sorted(taken);
    const Interval held = widened_by_step({bounds.low, bounds.high}, kStep);
    const double median = taken[taken.size() / 2];
    EXPECT_LE(std::max(median - held.low, held.high - median), 2 * kStep + 1e-15) << seed;
  }
}

StoppingRule round_share(int rounds) {
  StoppingRule rule = adaptive_rule(4, 0, 0.01 * std::sqrt(rounds), 1.0 / rounds);
  rule.rounds = rounds;
  rule.point_target_ci = 0.01;
  return rule;
}

// The stream's median is 1 ms. Against an earlier round at 1.5 ms the point cannot reach 1%:
// the round stops at its first interval that excludes agreement, long before its own target.
TEST(StoppingState, ARoundStopsOnceTheRoundsAlreadyDisagree) {
  for (std::uint32_t seed : {1u, 2u, 3u, 42u, 2024u}) {
    const Outcome alone = run_until_stop(round_share(3), std::nullopt, NoisyStream(seed));
    const Outcome against =
        run_until_stop(round_share(3), std::nullopt, NoisyStream(seed), {1.5e-3});
    EXPECT_EQ(against.reason, StopReason::round_noise) << "seed " << seed;
    EXPECT_LT(against.samples, 40u) << "seed " << seed;
    EXPECT_GT(alone.samples, 10 * against.samples) << "seed " << seed;
  }
}

// Earlier rounds at the stream's own median: nothing is settled, the round runs as alone.
TEST(StoppingState, RoundsThatAgreeLeaveTheRoundToItsTarget) {
  for (std::uint32_t seed : {1u, 2u, 3u, 42u, 2024u}) {
    const Outcome alone = run_until_stop(round_share(3), std::nullopt, NoisyStream(seed));
    const Outcome agreeing =
        run_until_stop(round_share(3), std::nullopt, NoisyStream(seed), {1e-3, 1e-3});
    EXPECT_EQ(agreeing.reason, alone.reason) << "seed " << seed;
    EXPECT_EQ(agreeing.samples, alone.samples) << "seed " << seed;
  }
}

TEST(StoppingState, FixedCountIgnoresTheEarlierRounds) {
  StoppingRule rule = round_share(3);
  rule.fixed_samples = 50;
  const Outcome outcome = run_until_stop(rule, std::nullopt, NoisyStream(7), {1.5e-3});
  EXPECT_EQ(outcome.reason, StopReason::fixed_count);
  EXPECT_EQ(outcome.samples, 50u);
}

TEST(StoppingState, FixedCountEndsAtExactlyNEvenWhenNoisy) {
  StoppingRule rule = adaptive_rule(1000, 100, 0, 1e-9);
  rule.fixed_samples = 37;
  const Outcome outcome = run_until_stop(rule, std::nullopt, NoisyStream(7));
  EXPECT_EQ(outcome.reason, StopReason::fixed_count);
  EXPECT_EQ(outcome.samples, 37u);
}

TEST(StoppingState, FixedCountStillHonoursTimeLimit) {
  const StoppingRule rule = fixed_rule(1000);
  const Outcome outcome = run_until_stop(rule, 0.125, constant_sample);
  EXPECT_EQ(outcome.reason, StopReason::time_limit);
  EXPECT_EQ(outcome.samples, 128u);
}

TEST(StoppingState, TimeLimitWinsOverMaxTimeWhenCloser) {
  const StoppingRule rule = rule_with_max_time(1.0);
  const Outcome outcome = run_until_stop(rule, 0.25, NoisyStream(5));
  EXPECT_EQ(outcome.reason, StopReason::time_limit);
  EXPECT_GE(outcome.elapsed_s, 0.25);
  EXPECT_LT(outcome.elapsed_s - outcome.last_sample_s, 0.25);
}

TEST(StoppingState, MaxTimeWinsOverTimeLimitWhenCloser) {
  const StoppingRule rule = rule_with_max_time(0.25);
  const Outcome outcome = run_until_stop(rule, 1.0, NoisyStream(5));
  EXPECT_EQ(outcome.reason, StopReason::max_time);
}

TEST(StoppingState, TimeLimitWinsATie) {
  const StoppingRule rule = rule_with_max_time(0.125);
  const Outcome outcome = run_until_stop(rule, 0.125, NoisyStream(5));
  EXPECT_EQ(outcome.reason, StopReason::time_limit);
}

// A point stopped by --max-time with fewer samples than --min-samples has no interval; the
// minimum wins (the sweep's --time-limit still ends it: see above).
TEST(StoppingState, MaxTimeWaitsForMinSamples) {
  StoppingState state(adaptive_rule(5, 0, 0.01, 0.05), std::nullopt);
  state.add(1.0);  // one slow sample, far past --max-time
  EXPECT_EQ(state.decide(1.0), std::nullopt);
  for (int i = 0; i < 3; ++i) state.add(1.0 + 0.5 * i);
  EXPECT_EQ(state.decide(4.0), std::nullopt);
  state.add(0.5);
  EXPECT_EQ(state.decide(4.5), StopReason::max_time);
  EXPECT_EQ(state.samples(), 5u);
}

TEST(StoppingState, NeverStopsBeforeOneSample) {
  const StoppingRule adaptive = adaptive_rule(0, 0, 0.01, 0);
  const StoppingRule fixed = fixed_rule(1);
  EXPECT_EQ(StoppingState(adaptive, 0.0).decide(1e9), std::nullopt);
  EXPECT_EQ(StoppingState(fixed, 0.0).decide(1e9), std::nullopt);
}

TEST(StoppingState, ExhaustedTimeLimitStopsAfterTheFirstSample) {
  StoppingState state(StoppingRule{}, 0.0);
  state.add(kConstantSample);
  EXPECT_EQ(state.decide(kConstantSample), StopReason::time_limit);
}

}  // namespace
}  // namespace collbench
