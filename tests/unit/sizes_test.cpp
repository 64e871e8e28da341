#include "harness/plan/sizes.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace collbench {
namespace {

// The message of the std::invalid_argument that `parse_size(text)` throws, or a failure.
std::string parse_error(const std::string& text) {
  try {
    const std::size_t value = parse_size(text);
    ADD_FAILURE() << "parse_size(\"" << text << "\") returned " << value << " instead of throwing";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return {};
}

std::string sweep_error(const SweepSpec& spec) {
  try {
    const auto sizes = sweep_sizes(spec);
    ADD_FAILURE() << "sweep_sizes returned " << sizes.size() << " sizes instead of throwing";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return {};
}

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("1000"), 1000u);
  EXPECT_EQ(parse_size("8B"), 8u);
  EXPECT_EQ(parse_size("8b"), 8u);
}

TEST(ParseSize, SuffixesArePowersOf1024) {
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("1k"), 1024u);
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("64M"), std::size_t{64} * 1024 * 1024);
  EXPECT_EQ(parse_size("64M"), 67108864u);
  EXPECT_EQ(parse_size("2G"), std::size_t{2} * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_size("2G"), 2147483648u);
}

// nccl-tests reads -e 1.5G as a number times the unit, rounded down to whole bytes.
TEST(ParseSize, FractionsAsNcclTestsTakesThem) {
  EXPECT_EQ(parse_size("1.5G"), std::size_t{3} << 29);
  EXPECT_EQ(parse_size("0.5K"), 512u);
  EXPECT_EQ(parse_size("2.25M"), std::size_t{9} << 18);
  EXPECT_EQ(parse_size("1.3K"), 1331u);  // 1331.2 bytes
  EXPECT_EQ(parse_size("7.9"), 7u);
}

TEST(ParseSize, AcceptsTrailingBAndIB) {
  EXPECT_EQ(parse_size("1KiB"), 1024u);
  EXPECT_EQ(parse_size("1kb"), 1024u);
  EXPECT_EQ(parse_size("1KB"), 1024u);
  EXPECT_EQ(parse_size("3MiB"), 3u * 1024 * 1024);
  EXPECT_EQ(parse_size("1gib"), std::size_t{1} << 30);
}

TEST(ParseSize, RejectsWhatIsNotASizeAndNamesTheText) {
  for (const std::string text : {"1Q", "-5", ".5M", "K", "abc", "1KK", "1 K", "1Mx", "1.5.5M"}) {
    SCOPED_TRACE(text);
    const std::string message = parse_error(text);
    EXPECT_NE(message.find("'" + text + "'"), std::string::npos) << message;
  }
}

TEST(ParseSize, RejectsEmptyText) {
  const std::string message = parse_error("");
  EXPECT_NE(message.find("''"), std::string::npos) << message;
}

TEST(ParseSize, RejectsOverflow) {
  // Too many digits for any integer.
  std::string message = parse_error("99999999999999999999G");
  EXPECT_NE(message.find("99999999999999999999G"), std::string::npos) << message;
  EXPECT_NE(message.find("too large"), std::string::npos) << message;
  // Fits in 64 bits as a number, but not once shifted by the suffix.
  message = parse_error("17179869184G");  // 2^34 GiB = 2^64 bytes
  EXPECT_NE(message.find("17179869184G"), std::string::npos) << message;
  EXPECT_NE(message.find("too large"), std::string::npos) << message;
  // The largest value that does fit is accepted exactly.
  EXPECT_EQ(parse_size("17179869183G"), (std::size_t{17179869183}) << 30);
}

TEST(FormatSize, UsesBinaryUnits) {
  EXPECT_EQ(format_size(8), "8 B");
  EXPECT_EQ(format_size(1023), "1023 B");
  EXPECT_EQ(format_size(1024), "1 KiB");
  EXPECT_EQ(format_size(64 * 1024), "64 KiB");
  EXPECT_EQ(format_size(std::size_t{1} << 20), "1 MiB");
  EXPECT_EQ(format_size(std::size_t{3} << 19), "1.5 MiB");
  EXPECT_EQ(format_size(std::size_t{64} << 20), "64 MiB");
  EXPECT_EQ(format_size(std::size_t{2} << 30), "2 GiB");
  EXPECT_EQ(format_size(std::size_t{1} << 40), "1 TiB");
  EXPECT_EQ(format_size(std::size_t{2048} << 40), "2048 TiB");
}

// format_size is for people: a number and a binary unit, never scientific notation, and close
// to the true size. KNOWN BUG (left failing on purpose): sizes just below a unit boundary,
// 1000..1023.99 of a unit, are formatted with "{:.3g}" and print as "1.02e+03 KiB". Such sizes
// are common: allgather and reduce-scatter of float over 3 ranks round the default sweep's
// 1 MiB point down to 1048572 B, which the progress line shows as "1.02e+03 KiB".
TEST(FormatSize, NeverUsesScientificNotation) {
  const std::size_t cases[] = {1048572, (std::size_t{1} << 20) - 1, 1000 * 1024 + 512,
                               (std::size_t{64} << 20) - 4, (std::size_t{1} << 30) - 12, 1000,
                               1023, 10 * 1024 + 256, (std::size_t{1} << 40) - 1};
  for (std::size_t bytes : cases) {
    const std::string text = format_size(bytes);
    EXPECT_EQ(text.find('e'), std::string::npos) << bytes << " B formatted as '" << text << "'";
    // Whatever the rounding, the number and unit read back within 1% of the size.
    const std::size_t space = text.find(' ');
    ASSERT_NE(space, std::string::npos) << text;
    const double number = std::stod(text.substr(0, space));
    const std::string unit = text.substr(space + 1);
    double scale = 1;
    if (unit == "KiB") {
      scale = 1024.0;
    } else if (unit == "MiB") {
      scale = 1024.0 * 1024;
    } else if (unit == "GiB") {
      scale = 1024.0 * 1024 * 1024;
    } else if (unit == "TiB") {
      scale = 1024.0 * 1024 * 1024 * 1024;
    } else {
      EXPECT_EQ(unit, "B") << text;
    }
    EXPECT_NEAR(number * scale, static_cast<double>(bytes), 0.01 * static_cast<double>(bytes))
        << bytes << " B formatted as '" << text << "'";
  }
}

TEST(SweepSizes, DefaultFactorTwoFrom8To64M) {
  const auto sizes = sweep_sizes(SweepSpec{8, std::size_t{64} << 20, 2, std::nullopt});
  ASSERT_EQ(sizes.size(), 24u);
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], std::size_t{8} << i) << i;
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 67108864u);
  // The defaults of SweepSpec are that same sweep.
  EXPECT_EQ(sweep_sizes(SweepSpec{}), sizes);
}

TEST(SweepSizes, FactorFour) {
  const auto sizes = sweep_sizes(SweepSpec{8, 8192, 4, std::nullopt});
  EXPECT_EQ(sizes, (std::vector<std::size_t>{8, 32, 128, 512, 2048, 8192}));
  // A max that is not on the grid stops below it.
  EXPECT_EQ(sweep_sizes(SweepSpec{8, 8191, 4, std::nullopt}),
            (std::vector<std::size_t>{8, 32, 128, 512, 2048}));
}

TEST(SweepSizes, MinEqualsMaxGivesOneSize) {
  EXPECT_EQ(sweep_sizes(SweepSpec{1024, 1024, 2, std::nullopt}),
            (std::vector<std::size_t>{1024}));
  EXPECT_EQ(sweep_sizes(SweepSpec{1024, 1024, 2, std::size_t{100}}),
            (std::vector<std::size_t>{1024}));
}

TEST(SweepSizes, AdditiveStepIncludesMinAndStopsAtOrBelowMax) {
  EXPECT_EQ(sweep_sizes(SweepSpec{100, 500, 2, std::size_t{100}}),
            (std::vector<std::size_t>{100, 200, 300, 400, 500}));
  EXPECT_EQ(sweep_sizes(SweepSpec{100, 550, 2, std::size_t{100}}),
            (std::vector<std::size_t>{100, 200, 300, 400, 500}));
  EXPECT_EQ(sweep_sizes(SweepSpec{8, 10, 2, std::size_t{100}}), (std::vector<std::size_t>{8}));
  // -i takes precedence over -f, even a factor that alone would be rejected.
  EXPECT_EQ(sweep_sizes(SweepSpec{1, 3, 1, std::size_t{1}}), (std::vector<std::size_t>{1, 2, 3}));
}

TEST(SweepSizes, AdditiveStepNearTheTopOfTheRangeDoesNotWrap) {
  const std::size_t max = static_cast<std::size_t>(-1);
  const auto sizes = sweep_sizes(SweepSpec{max - 5, max, 2, std::size_t{4}});
  EXPECT_EQ(sizes, (std::vector<std::size_t>{max - 5, max - 1}));
}

TEST(SweepSizes, RejectsMaxBelowMin) {
  const std::string message = sweep_error(SweepSpec{1024, 512, 2, std::nullopt});
  EXPECT_NE(message.find("-e/--maxbytes"), std::string::npos) << message;
  EXPECT_NE(message.find("-b/--minbytes"), std::string::npos) << message;
}

TEST(SweepSizes, RejectsFactorsNotAboveOne) {
  for (double factor : {1.0, 0.0, -2.0, 0.5}) {
    SCOPED_TRACE(factor);
    const std::string message = sweep_error(SweepSpec{8, 1024, factor, std::nullopt});
    EXPECT_NE(message.find("-f/--stepfactor"), std::string::npos) << message;
  }
}

TEST(SweepSizes, RejectsZeroStep) {
  const std::string message = sweep_error(SweepSpec{8, 1024, 2, std::size_t{0}});
  EXPECT_NE(message.find("-i/--stepbytes"), std::string::npos) << message;
}

TEST(SweepSizes, RejectsZeroMin) {
  const std::string message = sweep_error(SweepSpec{0, 1024, 2, std::nullopt});
  EXPECT_NE(message.find("-b/--minbytes"), std::string::npos) << message;
}

}  // namespace
}  // namespace collbench
