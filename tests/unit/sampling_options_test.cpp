#include "harness/cli/sampling_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/errors.h"
#include "harness/measure/run_config.h"

namespace collbench {
namespace {

// The options as `run` and `links` both declare them, parsed from a command line.
Sampling parsed(std::vector<std::string> args) {
  CLI::App app;
  SamplingOptions options;
  add_sampling_options(app, options, {.warmup = "warm-ups", .rounds = "rounds"});
  args.insert(args.begin(), "collbench");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return resolve_sampling(options);
}

std::string refusal(std::vector<std::string> args) {
  try {
    parsed(std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(SamplingOptions, DefaultsAdaptiveInThreeRounds) {
  const Sampling sampling = parsed({});
  EXPECT_EQ(sampling.rounds, kDefaultRounds);
  EXPECT_EQ(sampling.warmup, 5);
  EXPECT_FALSE(sampling.stopping.fixed_samples.has_value());
  EXPECT_EQ(sampling.stopping.min_samples, 10u);
  EXPECT_DOUBLE_EQ(sampling.stopping.target_ci, 0.01);
  EXPECT_DOUBLE_EQ(sampling.stopping.max_time_s, 1.0);
}

// nccl-tests' -n is an exact count: one round, unless rounds are asked for too.
TEST(SamplingOptions, FixedCountIsOneRoundUnlessAsked) {
  const Sampling fixed = parsed({"-n", "20", "-w", "0"});
  EXPECT_EQ(fixed.stopping.fixed_samples, 20u);
  EXPECT_EQ(fixed.rounds, 1);
  EXPECT_EQ(fixed.warmup, 0);
  EXPECT_EQ(parsed({"-n", "20", "--rounds", "4"}).rounds, 4);
  const Sampling stopping =
      parsed({"--min-samples", "4", "--min-time", "0.5", "--target-ci", "0.02", "--max-time", "3"});
  EXPECT_EQ(stopping.stopping.min_samples, 4u);
  EXPECT_DOUBLE_EQ(stopping.stopping.min_time_s, 0.5);
  EXPECT_DOUBLE_EQ(stopping.stopping.target_ci, 0.02);
  EXPECT_DOUBLE_EQ(stopping.stopping.max_time_s, 3.0);
}

// -T is the user's: the watchdog no longer stretches with the slowest sample.
TEST(SamplingOptions, ATimeoutGivenIsKeptAsGiven) {
  EXPECT_TRUE(parsed({}).watchdog.grows_with_samples);
  const Watchdog given = parsed({"-T", "30"}).watchdog;
  EXPECT_DOUBLE_EQ(given.timeout_s, 30.0);
  EXPECT_FALSE(given.grows_with_samples);
}

// One set of rules for every measuring command: run and links once drifted apart (--rounds
// 1-100 in one, any positive number in the other).
TEST(SamplingOptions, OutOfRangeValuesAreRefusedNamingTheOption) {
  EXPECT_EQ(parsed({"--rounds", "100"}).rounds, 100);
  for (const auto& [args, option] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--rounds", "0"}, "--rounds"},
           {{"--rounds", "101"}, "--rounds"},
           {{"-n", "0"}, "-n/--iters"},
           {{"-w", "-1"}, "-w/--warmup_iters"},
           {{"--min-samples", "0"}, "--min-samples"},
           {{"--min-time", "-1"}, "--min-time"},
           {{"--target-ci", "1"}, "--target-ci"},
           {{"--target-ci", "0"}, "--target-ci"},
           {{"--max-time", "0"}, "--max-time"},
           {{"-T", "-1"}, "-T/--timeout"}}) {
    const std::string message = refusal(args);
    EXPECT_NE(message.find(option), std::string::npos)
        << args[0] << " " << args[1] << ": " << message;
  }
}

}  // namespace
}  // namespace collbench
