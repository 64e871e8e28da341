#include "harness/cli/size_options.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "harness/errors.h"

namespace collbench {
namespace {

// The sizes as `run` (steps: either) or `links` (multiplicative) declare them.
SizeSweep parsed(SizeSteps steps, std::vector<std::string> args) {
  CLI::App app;
  SizeOptions options{.min_bytes = "8", .max_bytes = "64", .step_factor = 2};
  add_size_options(app, options, steps);
  args.insert(args.begin(), "collbench");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return resolve_sizes(options);
}

std::string refusal(SizeSteps steps, std::vector<std::string> args) {
  try {
    parsed(steps, std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(SizeOptions, SweepFromTheCommandsDefaultsOrTheGivenRange) {
  EXPECT_EQ(parsed(SizeSteps::multiplicative, {}).sizes, (std::vector<std::size_t>{8, 16, 32, 64}));
  const SizeSweep given = parsed(SizeSteps::multiplicative, {"-b", "1K", "-e", "16K", "-f", "4"});
  EXPECT_EQ(given.sizes, (std::vector<std::size_t>{1024, 4096, 16384}));
  EXPECT_EQ(given.spec.max_bytes, 16384u);
  const SizeSweep additive = parsed(SizeSteps::either, {"-b", "8", "-e", "32", "-i", "8"});
  EXPECT_EQ(additive.sizes, (std::vector<std::size_t>{8, 16, 24, 32}));
}

// links steps by a factor only: -i is not one of its options.
TEST(SizeOptions, AnAdditiveStepIsOfferedOnlyWhereTheCommandTakesOne) {
  EXPECT_THROW(parsed(SizeSteps::multiplicative, {"-i", "8"}), CLI::ParseError);
}

// Both commands refuse alike: links once refused -b 0 itself, with its own wording.
TEST(SizeOptions, BadValuesAreRefusedNamingTheOption) {
  for (const SizeSteps steps : {SizeSteps::multiplicative, SizeSteps::either})
    for (const auto& [args, option] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"-b", "0"}, "-b/--minbytes"},
             {{"-b", "1Q"}, "-b/--minbytes"},
             {{"-e", "lots"}, "-e/--maxbytes"},
             {{"-b", "1M", "-e", "1K"}, "below -b/--minbytes"},
             {{"-f", "1"}, "-f/--stepfactor"}}) {
      const std::string message = refusal(steps, args);
      EXPECT_NE(message.find(option), std::string::npos) << args[0] << ": " << message;
    }
  EXPECT_NE(refusal(SizeSteps::either, {"-i", "0"}).find("-i/--stepbytes"), std::string::npos);
}

}  // namespace
}  // namespace collbench
