// Acceptance specs: what parses into which thresholds, and every error naming file, line, rule.
#include <gtest/gtest.h>

#include <string>

#include "harness/check/quantity.h"
#include "harness/check/spec.h"
#include "tests/unit/spec_problems.h"

namespace collbench {
namespace {

TEST(CheckSpec, ParsesSelectionsThresholdsAndUnits) {
  const Spec spec = parse_spec(R"(
title = "h100 acceptance"
warn_within = "5%"

[[rule]]
name = "allreduce-8gpu"
collective = "allreduce"
placement = "intra"
nranks = 8
datatype = "float"
sizes = "1G-8G"
busbw_min = "300 GB/s"

[[rule]]
collective = "allgather"
nranks = "2-8"
size_min = "64K"
size_max = 1048576
algbw_min = "300 MB/s"
warn_within = "0%"

[[rule]]
sizes = "8"
latency_max = "0.1 ms"
optional = true

[[rule]]
collective = "allreduce"
alpha_max = "10 us"

[[rule]]
collective = "allreduce"
mode = "bandwidth"
bandwidth_min = "2 Gbit/s"
)", "h100.toml");
  EXPECT_EQ(spec.title, "h100 acceptance");
  ASSERT_EQ(spec.rules.size(), 5u);

  const Rule& a = spec.rules[0];
  EXPECT_EQ(a.name, "allreduce-8gpu");
  EXPECT_EQ(a.index, 1);
  EXPECT_EQ(a.line, 5);
  EXPECT_EQ(a.selection.collective, CollectiveKind::allreduce);
  EXPECT_EQ(a.selection.placement, Placement::intra);
  EXPECT_EQ(a.selection.nranks.low, 8);
  EXPECT_EQ(a.selection.nranks.high, 8);
  EXPECT_EQ(a.selection.datatype, DataType::float32);
  EXPECT_EQ(a.selection.sizes.low, std::size_t{1} << 30);
  EXPECT_EQ(a.selection.sizes.high, std::size_t{8} << 30);
  EXPECT_EQ(a.selection.mode, Mode::bandwidth);  // busbw: nccl-tests' bandwidth mode
  EXPECT_EQ(a.threshold.metric, Metric::busbw);
  EXPECT_DOUBLE_EQ(*a.threshold.floor, 300);
  EXPECT_FALSE(a.threshold.ceiling);
  EXPECT_DOUBLE_EQ(a.threshold.warn_within, 0.05);  // the spec's default

  const Rule& b = spec.rules[1];
  EXPECT_EQ(b.selection.nranks.low, 2);
  EXPECT_EQ(b.selection.nranks.high, 8);
  EXPECT_EQ(b.selection.sizes.low, 65536u);
  EXPECT_EQ(b.selection.sizes.high, 1048576u);
  EXPECT_DOUBLE_EQ(*b.threshold.floor, 0.3);  // GB/s
  EXPECT_EQ(b.threshold.unit, "MB/s");
  EXPECT_DOUBLE_EQ(b.threshold.warn_within, 0);  // overrides the default
  EXPECT_EQ(b.name, "allgather 2-8 ranks bandwidth 64 KiB-1 MiB algbw_min");

  const Rule& c = spec.rules[2];
  EXPECT_EQ(c.selection.mode, Mode::latency);
  EXPECT_EQ(c.selection.sizes.low, 8u);
  EXPECT_EQ(c.selection.sizes.high, 8u);
  EXPECT_DOUBLE_EQ(*c.threshold.ceiling, 100);  // microseconds
  EXPECT_TRUE(c.optional);

  EXPECT_EQ(spec.rules[3].threshold.metric, Metric::alpha);
  EXPECT_EQ(spec.rules[3].selection.mode, Mode::latency);  // fits default to latency mode
  EXPECT_EQ(spec.rules[4].selection.mode, Mode::bandwidth);
  EXPECT_DOUBLE_EQ(*spec.rules[4].threshold.floor, 0.25);  // 2 Gbit/s = 0.25 GB/s
}

TEST(CheckSpec, TitleDefaultsToTheFileStem) {
  const Spec spec = parse_spec("[[rule]]\nbusbw_min = \"1 GB/s\"\n", "ci/acceptance/x-y.toml");
  EXPECT_EQ(spec.title, "x-y");
  EXPECT_EQ(spec.rules[0].name, "any-collective bandwidth busbw_min");
}

TEST(CheckSpec, ReferenceToleranceIsReFrameStyle) {
  const Spec spec = parse_spec(R"(
[[rule]]
reference = {busbw = "360 GB/s", tolerance = "-10%"}
[[rule]]
reference = {latency = "20 us", tolerance = "+50%"}
[[rule]]
collective = "allreduce"
reference = {busbw = "100 GB/s", tolerance = "5%"}
[[rule]]
collective = "allgather"
reference = {bandwidth = "100 GB/s", lower = "-20%", upper = "+10%"}
)", "s.toml");
  const auto& t0 = spec.rules[0].threshold;
  EXPECT_EQ(t0.key, "reference");
  EXPECT_DOUBLE_EQ(*t0.reference, 360);
  EXPECT_DOUBLE_EQ(*t0.floor, 324);
  EXPECT_FALSE(t0.ceiling);
  const auto& t1 = spec.rules[1].threshold;
  EXPECT_FALSE(t1.floor);
  EXPECT_DOUBLE_EQ(*t1.ceiling, 30);
  EXPECT_EQ(spec.rules[1].selection.mode, Mode::latency);
  EXPECT_DOUBLE_EQ(*spec.rules[2].threshold.floor, 95);
  EXPECT_DOUBLE_EQ(*spec.rules[2].threshold.ceiling, 105);
  EXPECT_DOUBLE_EQ(*spec.rules[3].threshold.floor, 80);
  EXPECT_DOUBLE_EQ(*spec.rules[3].threshold.ceiling, 110);
}

TEST(CheckSpec, QuantitiesNeedKnownUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("300GB/s").value, 300);
  EXPECT_DOUBLE_EQ(parse_bandwidth(" 1.5 TB/s ").value, 1500);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1 GiB/s").value, 1.073741824);
  EXPECT_DOUBLE_EQ(parse_time("250 ns").value, 0.25);
  EXPECT_DOUBLE_EQ(parse_time("2 s").value, 2e6);
  EXPECT_DOUBLE_EQ(parse_fraction("5%", false), 0.05);
  EXPECT_THROW(parse_bandwidth("300"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth("300 GBps"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth("25 us"), std::invalid_argument);
  EXPECT_THROW(parse_time("25 GB/s"), std::invalid_argument);
  EXPECT_THROW(parse_time("fast"), std::invalid_argument);
  EXPECT_THROW(parse_fraction("0.05", false), std::invalid_argument);
  EXPECT_THROW(parse_fraction("10%", true), std::invalid_argument);
}

TEST(CheckSpec, UnknownKeyNamesFileLineRuleAndANearMiss) {
  const auto problems = problems_of(R"([[rule]]
collective = "allreduce"
busbw_min = "1 GB/s"

[[rule]]
collective = "allgather"
bussbw_min = "300 GB/s"
)");
  EXPECT_NE(problems.find("spec.toml:7: rule 2: unknown key 'bussbw_min' (did you mean 'busbw_min'?)"),
            std::string::npos)
      << problems;
}

TEST(CheckSpec, BadUnitsNameTheKeyAndTheUnitsExpected) {
  auto p = problems_of("[[rule]]\nbusbw_min = \"300 Gb/s\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: busbw_min: '300 Gb/s' has unknown unit 'Gb/s'"),
            std::string::npos) << p;
  EXPECT_NE(p.find("Gbit/s for bits"), std::string::npos) << p;
  p = problems_of("[[rule]]\nlatency_max = \"25\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: latency_max: '25' needs a unit"), std::string::npos) << p;
  p = problems_of("[[rule]]\nlatency_max = 25\n");
  EXPECT_NE(p.find("latency_max must be a string"), std::string::npos) << p;
  p = problems_of("[[rule]]\nalpha_max = \"10 GB/s\"\n");
  EXPECT_NE(p.find("for a time"), std::string::npos) << p;
  p = problems_of("[[rule]]\nbusbw_min = \"1 GB/s\"\nwarn_within = \"0.05\"\n");
  EXPECT_NE(p.find("spec.toml:3: rule 1: warn_within"), std::string::npos) << p;
}

TEST(CheckSpec, ARuleHoldsExactlyOneThreshold) {
  auto p = problems_of("[[rule]]\ncollective = \"allreduce\"\n");
  EXPECT_NE(p.find("spec.toml:1: rule 1: no threshold"), std::string::npos) << p;
  p = problems_of("[[rule]]\nbusbw_min = \"1 GB/s\"\nlatency_max = \"1 ms\"\n");
  EXPECT_NE(p.find("rule 1: two thresholds"), std::string::npos) << p;
}

TEST(CheckSpec, NamesThatSelectNothingAreRefused) {
  auto p = problems_of("[[rule]]\ncollective = \"allreduse\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: collective 'allreduse' selects nothing"), std::string::npos)
      << p;
  p = problems_of("[[rule]]\nplacement = \"node\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("placement 'node' selects nothing"), std::string::npos) << p;
  p = problems_of("[[rule]]\ndatatype = \"float33\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("datatype 'float33'"), std::string::npos) << p;
  p = problems_of("[[rule]]\ncollective = \"allgather\"\nop = \"sum\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("allgather reduces nothing"), std::string::npos) << p;
  p = problems_of("[[rule]]\nmode = \"fast\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("mode 'fast'"), std::string::npos) << p;
  p = problems_of("[[rule]]\nsizes = \"8G-1G\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("size range is empty"), std::string::npos) << p;
  p = problems_of("[[rule]]\nsizes = \"1X-8G\"\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: sizes:"), std::string::npos) << p;
  p = problems_of("[[rule]]\nnranks = 0\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("nranks must be at least 1"), std::string::npos) << p;
}

TEST(CheckSpec, OverlappingRulesOfOneKindAreRefusedWithBothLines) {
  const auto p = problems_of(R"([[rule]]
collective = "allreduce"
sizes = "1G-8G"
busbw_min = "300 GB/s"

[[rule]]
collective = "allreduce"
sizes = "4G-16G"
busbw_min = "350 GB/s"
)");
  EXPECT_NE(p.find("spec.toml:6: rule 2: overlaps rule 1 (line 1)"), std::string::npos) << p;
}

TEST(CheckSpec, AdjacentRangesOtherKindsAndOtherSelectionsMayCoexist) {
  const Spec spec = parse_spec(R"([[rule]]
collective = "allreduce"
sizes = "1G-2G"
busbw_min = "300 GB/s"
[[rule]]
collective = "allreduce"
sizes = "3G-8G"
busbw_min = "350 GB/s"
[[rule]]
collective = "allreduce"
sizes = "1G-8G"
reference = {busbw = "360 GB/s", tolerance = "-10%"}
[[rule]]
collective = "allreduce"
placement = "inter"
sizes = "1G-8G"
busbw_min = "40 GB/s"
)", "ok.toml");
  EXPECT_EQ(spec.rules.size(), 4u);
}

TEST(CheckSpec, SyntaxErrorsTopLevelKeysAndEmptySpecs) {
  auto p = problems_of("[[rule]]\nbusbw_min = \"1 GB/s\n");
  EXPECT_NE(p.find("spec.toml:2: not valid TOML"), std::string::npos) << p;
  p = problems_of("titel = \"x\"\n[[rule]]\nbusbw_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("spec.toml:1: unknown key 'titel' (did you mean 'title'?)"), std::string::npos)
      << p;
  p = problems_of("title = \"nothing\"\n");
  EXPECT_NE(p.find("no rules"), std::string::npos) << p;
}

TEST(CheckSpec, EveryProblemIsReportedAndNamesAreUnique) {
  auto p = problems_of(R"([[rule]]
collectiv = "allreduce"
busbw_min = "1 GB/s"
[[rule]]
latency_max = "3 parsecs"
)");
  EXPECT_NE(p.find("spec.toml:2: rule 1"), std::string::npos) << p;
  EXPECT_NE(p.find("spec.toml:5: rule 2"), std::string::npos) << p;
  p = problems_of(R"([[rule]]
name = "x"
busbw_min = "1 GB/s"
[[rule]]
name = "x"
latency_max = "1 ms"
)");
  EXPECT_NE(p.find("rule 2: name 'x' is taken by rule 1"), std::string::npos) << p;
}

TEST(CheckSpec, ReferenceErrors) {
  auto p = problems_of("[[rule]]\nreference = {busbw = \"360 GB/s\"}\n");
  EXPECT_NE(p.find("reference needs tolerance"), std::string::npos) << p;
  p = problems_of("[[rule]]\nreference = {busbw = \"360 GB/s\", tolerance = \"-10%\", tol = 1}\n");
  EXPECT_NE(p.find("reference: unknown key 'tol'"), std::string::npos) << p;
  p = problems_of("[[rule]]\nreference = {busbw = \"360 GB/s\", lower = \"10%\"}\n");
  EXPECT_NE(p.find("needs a sign"), std::string::npos) << p;
  p = problems_of("[[rule]]\nreference = {busbw = \"360 GB/s\", lower = \"+10%\"}\n");
  EXPECT_NE(p.find("lower tolerance must be between"), std::string::npos) << p;
  p = problems_of("[[rule]]\nreference = \"360 GB/s\"\n");
  EXPECT_NE(p.find("reference must be a table"), std::string::npos) << p;
}

TEST(CheckSpec, Describes) {
  const Spec spec = parse_spec(R"([[rule]]
collective = "allreduce"
placement = "world"
nranks = "16-"
sizes = "1G-"
busbw_min = "300 GB/s"
warn_within = "5%"
)", "d.toml");
  EXPECT_EQ(describe(spec.rules[0].selection), "allreduce world 16+ ranks bandwidth >=1 GiB");
  EXPECT_EQ(describe(spec.rules[0].threshold), ">= 300 GB/s warn 5%");
}

}  // namespace
}  // namespace collbench
