// Verdicts at their edges: exactly at a bound, inside the warn band, the bound inside the
// interval, just outside; optional rules, no matching points, fits; and the JUnit file read back.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/check/spec.h"
#include "harness/check/verdicts.h"
#include "harness/check/check_report.h"
#include "harness/report/verdict_files.h"

namespace collbench {
namespace {

Threshold floor_of(double floor, double warn = 0) {
  Threshold t;
  t.key = "busbw_min";
  t.metric = Metric::busbw;
  t.floor = floor;
  t.warn_within = warn;
  t.unit = "GB/s";
  return t;
}

Threshold ceiling_of(double ceiling, double warn = 0) {
  Threshold t;
  t.key = "latency_max";
  t.metric = Metric::latency;
  t.ceiling = ceiling;
  t.warn_within = warn;
  t.unit = "us";
  return t;
}

constexpr double NaN = kNoValue;

TEST(CheckVerdicts, FloorEdges) {
  const auto t = floor_of(100);
  EXPECT_EQ(judge_value(t, 100, NaN, NaN).verdict, Verdict::pass);  // exactly at the floor
  EXPECT_EQ(judge_value(t, 99.999, NaN, NaN).verdict, Verdict::fail);
  EXPECT_EQ(judge_value(t, 150, 120, 180).verdict, Verdict::pass);
  const auto fail = judge_value(t, 90, 85, 95);
  EXPECT_EQ(fail.verdict, Verdict::fail);
  EXPECT_EQ(fail.why, "10% below the floor");
  EXPECT_DOUBLE_EQ(fail.margin, -0.1);
  // a median above the floor with the floor inside its interval: not statistically sure
  const auto unsure = judge_value(t, 101, 99, 103);
  EXPECT_EQ(unsure.verdict, Verdict::warn);
  EXPECT_EQ(unsure.why, "the floor is inside the 95% interval");
  // the interval never rescues a median below the floor
  EXPECT_EQ(judge_value(t, 99, 97, 120).verdict, Verdict::fail);
  EXPECT_EQ(judge_value(t, NaN, NaN, NaN).verdict, Verdict::fail);
}

TEST(CheckVerdicts, WarnBandIsHalfOpen) {
  const auto t = floor_of(100, 0.05);
  EXPECT_EQ(judge_value(t, 100, NaN, NaN).verdict, Verdict::warn);  // at the floor
  EXPECT_EQ(judge_value(t, 104.9, NaN, NaN).verdict, Verdict::warn);
  EXPECT_EQ(judge_value(t, 105, NaN, NaN).verdict, Verdict::pass);  // at the band's edge
  EXPECT_EQ(judge_value(t, 99.9, NaN, NaN).verdict, Verdict::fail);
  EXPECT_EQ(judge_value(t, 104, NaN, NaN).why, "within 5% of the floor");
}

TEST(CheckVerdicts, CeilingEdges) {
  const auto t = ceiling_of(25, 0.2);
  EXPECT_EQ(judge_value(t, 25, NaN, NaN).verdict, Verdict::warn);
  EXPECT_EQ(judge_value(t, 25.01, NaN, NaN).verdict, Verdict::fail);
  EXPECT_EQ(judge_value(t, 20.5, NaN, NaN).verdict, Verdict::warn);  // above 25·0.8
  EXPECT_EQ(judge_value(t, 20, 19, 21).verdict, Verdict::pass);      // at the band's edge
  EXPECT_EQ(judge_value(t, 15, 10, 26).verdict, Verdict::warn);      // ceiling inside the CI
  EXPECT_EQ(judge_value(ceiling_of(25), 25, 24, 25).verdict, Verdict::pass);
}

TEST(CheckVerdicts, ReferenceBoundsBothSides) {
  Threshold t = floor_of(90);
  t.ceiling = 110;
  t.reference = 100;
  EXPECT_EQ(judge_value(t, 100, 99, 101).verdict, Verdict::pass);
  EXPECT_EQ(judge_value(t, 111, 110.5, 112).verdict, Verdict::fail);
  EXPECT_EQ(judge_value(t, 111, NaN, NaN).why, "0.909% above the ceiling");
  EXPECT_EQ(judge_value(t, 89, NaN, NaN).verdict, Verdict::fail);
}

PointResult point(CollectiveKind kind, Mode mode, std::size_t size, double busbw,
                  double ci_rel = 0.01) {
  PointResult p;
  p.key.backend = "mpi";
  p.key.collective = kind;
  p.key.placement = Placement::world;
  p.key.nranks = 2;
  p.key.mode = mode;
  p.key.size_bytes = size;
  p.busbw_gbps = busbw;
  p.algbw_gbps = busbw;  // 2 ranks, allreduce: factor 1
  p.summary.samples = 25;
  p.summary.median = static_cast<double>(size) / (busbw * 1e9);
  p.summary.ci_low = p.summary.median * (1 - ci_rel);
  p.summary.ci_high = p.summary.median * (1 + ci_rel);
  p.checks.before_timing = 0;
  return p;
}

Rule busbw_rule(double floor, std::size_t low = 0) {
  Rule r;
  r.index = 1;
  r.name = "busbw";
  r.selection.collective = CollectiveKind::allreduce;
  r.selection.mode = Mode::bandwidth;
  r.selection.sizes.low = low;
  r.threshold = floor_of(floor);
  return r;
}

TEST(CheckVerdicts, ARuleJudgesEveryMatchingPointAndReportsTheWorst) {
  const std::vector<PointResult> points{
      point(CollectiveKind::allreduce, Mode::bandwidth, 1 << 20, 5),
      point(CollectiveKind::allreduce, Mode::bandwidth, 1 << 22, 3),
      point(CollectiveKind::allreduce, Mode::bandwidth, 1 << 24, 8),
      point(CollectiveKind::allreduce, Mode::latency, 1 << 20, 0.1),  // other mode
      point(CollectiveKind::allgather, Mode::bandwidth, 1 << 20, 0.1),  // other collective
  };
  auto v = judge_rule(busbw_rule(2), points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_EQ(v.judged, 3u);
  ASSERT_TRUE(v.measured);
  EXPECT_DOUBLE_EQ(v.measured->value, 3);
  EXPECT_EQ(v.measured->key.size_bytes, 1u << 22);
  // the busbw interval is the time interval inverted
  EXPECT_NEAR(v.measured->low, 3 / 1.01, 1e-12);
  EXPECT_NEAR(v.measured->high, 3 / 0.99, 1e-12);
  EXPECT_EQ(format_measured(v.rule.threshold, *v.measured), "3 GB/s [2.97, 3.03]");

  v = judge_rule(busbw_rule(4), points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.failing, 1u);
  EXPECT_NE(v.message.find("3 points judged, 1 fail; 25% below the floor at allreduce float sum "
                           "world 2 ranks bandwidth 4 MiB"),
            std::string::npos) << v.message;

  v = judge_rule(busbw_rule(4, 1 << 23), points, nullptr);  // sizes >= 8 MiB: only 16 MiB
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_EQ(v.judged, 1u);
}

TEST(CheckVerdicts, NoMatchingPointsFailsUnlessOptional) {
  const std::vector<PointResult> points{point(CollectiveKind::allgather, Mode::bandwidth, 1024, 1)};
  Rule rule = busbw_rule(1);
  auto v = judge_rule(rule, points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.message, "no matching points");
  EXPECT_FALSE(v.measured);
  rule.optional = true;
  v = judge_rule(rule, points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::skip);
  EXPECT_EQ(severity(v.verdict), 0);
}

TEST(CheckVerdicts, WrongElementsFailHoweverFast) {
  auto p = point(CollectiveKind::allreduce, Mode::bandwidth, 1024, 100);
  p.checks.after_timing = 3;
  const std::vector<PointResult> points{p};
  const auto v = judge_rule(busbw_rule(1), points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_NE(v.message.find("3 wrong in the check after timing"), std::string::npos) << v.message;
}

// Numbers this host cannot make fail however well they meet the floor, naming why.
TEST(CheckVerdicts, ImplausiblePointsFailWithTheirReason) {
  auto p = point(CollectiveKind::allreduce, Mode::bandwidth, 1 << 16, 1500);
  p.implausible = Implausible::busbw_above_copy;
  const std::vector<PointResult> points{p};
  const auto v = judge_rule(busbw_rule(1), points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_NE(v.message.find("implausible: busbw 1500 GB/s is more than 4x the fastest copy of its "
                           "size here"),
            std::string::npos)
      << v.message;
  p.implausible = Implausible::no;
  const std::vector<PointResult> plausible{p};
  EXPECT_EQ(judge_rule(busbw_rule(1), plausible, nullptr).verdict, Verdict::pass);
}

// A point that stopped (--max-time, --time-limit) before it had a 95% interval shows a
// zero-width one; it must never pass on it.
TEST(CheckVerdicts, APointWithoutAnIntervalNeverPasses) {
  auto p = point(CollectiveKind::allreduce, Mode::bandwidth, 1024, 100, 0);
  p.summary.samples = 1;
  p.stop_reason = StopReason::max_time;
  const std::vector<PointResult> points{p};
  const auto v = judge_rule(busbw_rule(1), points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::warn);
  EXPECT_NE(v.message.find("1 samples give no 95% interval"), std::string::npos) << v.message;
  EXPECT_EQ(judge_rule(busbw_rule(200), points, nullptr).verdict, Verdict::fail);
  p.summary.samples = 6;  // the smallest sample with a 95% interval of the median
  const std::vector<PointResult> enough{p};
  EXPECT_EQ(judge_rule(busbw_rule(1), enough, nullptr).verdict, Verdict::pass);
}

TEST(CheckVerdicts, LatencyIsTheMedianInMicroseconds) {
  const std::vector<PointResult> points{point(CollectiveKind::allreduce, Mode::latency, 8, 0.001)};
  Rule r;
  r.name = "lat";
  r.selection.mode = Mode::latency;
  r.threshold = ceiling_of(10);  // 8 B at 1 MB/s = 8 us
  auto v = judge_rule(r, points, nullptr);
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_NEAR(v.measured->value, 8, 1e-9);
  EXPECT_NEAR(v.measured->high, 8.08, 1e-9);
  r.threshold = ceiling_of(8.05);  // inside the interval
  EXPECT_EQ(judge_rule(r, points, nullptr).verdict, Verdict::warn);
}

ModelReport models_with(std::vector<std::string> flags = {}) {
  ModelReport models;
  CurveFit curve;
  curve.key.backend = "mpi";
  curve.key.collective = CollectiveKind::allreduce;
  curve.key.placement = Placement::world;
  curve.key.nranks = 2;
  curve.key.mode = Mode::latency;
  SegmentReport small;
  small.min_size_bytes = 8;
  small.max_size_bytes = 4096;
  small.alpha_s = 5e-6;
  small.alpha_ci = {4e-6, 6e-6};
  small.beta_s_per_byte = 1e-9;  // 1 GB/s
  small.beta_ci = {0.9e-9, 1.1e-9};
  SegmentReport large = small;
  large.min_size_bytes = 8192;
  large.max_size_bytes = 1 << 26;
  large.alpha_s = 50e-6;
  large.alpha_ci = {40e-6, 60e-6};
  large.beta_s_per_byte = 0.1e-9;  // 10 GB/s
  large.beta_ci = {0.08e-9, 0.125e-9};
  large.flags = flags;
  curve.segments = {small, large};
  models.curves.push_back(curve);
  CurveFit unfitted = curve;
  unfitted.key.nranks = 4;
  unfitted.segments.clear();
  unfitted.flags = {"too few sizes (2 < 4)"};
  models.curves.push_back(unfitted);
  return models;
}

Rule fit_rule(Metric metric, std::optional<double> floor, std::optional<double> ceiling) {
  Rule r;
  r.name = "fit";
  r.selection.collective = CollectiveKind::allreduce;
  r.selection.nranks = {2, 2};
  r.selection.mode = Mode::latency;
  r.threshold.key = metric == Metric::alpha ? "alpha_max" : "bandwidth_min";
  r.threshold.metric = metric;
  r.threshold.floor = floor;
  r.threshold.ceiling = ceiling;
  r.threshold.unit = metric == Metric::alpha ? "us" : "GB/s";
  return r;
}

TEST(CheckVerdicts, AlphaIsTheFirstSegmentsAndBandwidthTheLasts) {
  const auto models = models_with();
  auto v = judge_rule(fit_rule(Metric::alpha, std::nullopt, 10), {}, &models);
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_EQ(v.judged, 1u);
  EXPECT_DOUBLE_EQ(v.measured->value, 5);
  EXPECT_DOUBLE_EQ(v.measured->high, 6);
  v = judge_rule(fit_rule(Metric::bandwidth, 9, std::nullopt), {}, &models);
  EXPECT_EQ(v.verdict, Verdict::warn);  // 10 GB/s [8, 12.5]: the floor is inside
  EXPECT_NEAR(v.measured->value, 10, 1e-9);
  EXPECT_NEAR(v.measured->low, 8, 1e-9);
  EXPECT_NEAR(v.measured->high, 12.5, 1e-9);
  // a size range judges every segment it overlaps: alpha of the large segment is 50 us
  Rule ranged = fit_rule(Metric::alpha, std::nullopt, 10);
  ranged.selection.sizes = {1024, 1 << 20};
  v = judge_rule(ranged, {}, &models);
  EXPECT_EQ(v.judged, 2u);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_DOUBLE_EQ(v.measured->value, 50);
}

TEST(CheckVerdicts, UntrustedFitsWarnAndUnfittedCurvesFail) {
  auto models = models_with({"negative beta"});
  auto v = judge_rule(fit_rule(Metric::bandwidth, 1, std::nullopt), {}, &models);
  EXPECT_EQ(v.verdict, Verdict::warn);
  EXPECT_NE(v.message.find("fit not trusted: negative beta"), std::string::npos) << v.message;
  models = models_with({"beta not significant"});  // the interval already weighs that
  EXPECT_EQ(judge_rule(fit_rule(Metric::bandwidth, 1, std::nullopt), {}, &models).verdict,
            Verdict::pass);
  Rule four = fit_rule(Metric::alpha, std::nullopt, 10);
  four.selection.nranks = {4, 4};
  v = judge_rule(four, {}, &models);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_NE(v.message.find("curve not fitted (too few sizes"), std::string::npos) << v.message;
  v = judge_rule(fit_rule(Metric::alpha, std::nullopt, 10), {}, nullptr);
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_NE(v.message.find("no fits in the file"), std::string::npos);
}

TEST(CheckVerdicts, OverallIsTheWorstAndSkipCountsAsPass) {
  std::vector<RuleVerdict> v(3);
  v[0].verdict = Verdict::pass;
  v[1].verdict = Verdict::skip;
  v[2].verdict = Verdict::warn;
  EXPECT_EQ(overall(v), Verdict::warn);
  v.pop_back();
  EXPECT_EQ(overall(v), Verdict::pass);
  v[0].verdict = Verdict::fail;
  EXPECT_EQ(overall(v), Verdict::fail);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CheckVerdicts, JUnitHasOneTestCasePerRuleAndAFailurePerFail) {
  const Spec spec = parse_spec(R"(
[[rule]]
name = "floor met"
collective = "allreduce"
size_max = "1M"
busbw_min = "1 GB/s"
[[rule]]
name = "floor missed <&>"
collective = "allreduce"
size_min = "4M"
busbw_min = "3.5 GB/s"
[[rule]]
name = "not measured"
collective = "reduce_scatter"
busbw_min = "1 GB/s"
[[rule]]
name = "optional"
collective = "allgather"
busbw_min = "1 GB/s"
optional = true
)", "junit.toml");
  const std::vector<PointResult> points{
      point(CollectiveKind::allreduce, Mode::bandwidth, 1 << 20, 5),
      point(CollectiveKind::allreduce, Mode::bandwidth, 1 << 22, 3)};
  const auto verdicts = judge_spec(spec, points, nullptr);
  std::vector<VerdictRecord> records;
  for (const auto& v : verdicts) records.push_back(check_record(v, spec.title));
  EXPECT_EQ(records[1].labels[2], (std::pair<std::string, std::string>{"collective", "allreduce"}));
  EXPECT_EQ(records[1].labels[7], (std::pair<std::string, std::string>{"size_bytes", "4194304-"}));
  const auto file = std::filesystem::temp_directory_path() /
                    ("check_verdicts_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".xml");
  write_junit(file, spec.title, records, verdict_run("", ""));
  std::stringstream xml;
  xml << std::ifstream(file).rdbuf();
  std::filesystem::remove(file);
  const std::string text = xml.str();
  EXPECT_EQ(count(text, "<testcase "), 4u) << text;
  EXPECT_EQ(count(text, "<failure "), 2u) << text;  // the missed floor, the unmeasured rule
  EXPECT_NE(text.find("<testsuite name=\"junit\" tests=\"4\" failures=\"2\" errors=\"0\" "
                      "skipped=\"1\""),
            std::string::npos)
      << text;
  // The optional rule that selected nothing is a JUnit skip, in base units when measured.
  EXPECT_TRUE(records[3].skipped);
  EXPECT_EQ(records[1].quantity, Quantity::bytes_per_second);
  EXPECT_DOUBLE_EQ(records[1].value, 3e9);
  EXPECT_NE(text.find("name=\"floor missed &lt;&amp;&gt;\""), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL: busbw 3 GB/s [2.97, 3.03]"), std::string::npos) << text;
  EXPECT_NE(text.find("<skipped message=\"SKIP: busbw - (threshold &gt;= 1 GB/s): no matching "
                      "points (optional rule)\"/>"),
            std::string::npos) << text;
}

}  // namespace
}  // namespace collbench
