#include "harness/report/verdict_files.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace collbench {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class VerdictFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("collbench-verdicts-" + std::to_string(::getpid()));
    fs::create_directories(folder_);
    records_ = {{.name = "allreduce <world> 8 ranks busbw floor",
                 .verdict = "PASS",
                 .message = "312 GB/s [305, 318] >= 300",
                 .value = 312e9,
                 .quantity = Quantity::bytes_per_second,
                 .labels = {{"collective", "allreduce"}, {"nranks", "8"}}},
                {.name = "allgather \"inter\" busbw floor",
                 .verdict = "FAIL",
                 .severity = 2,
                 .message = "88 GB/s < 100 & falling",
                 .value = 88e9,
                 .quantity = Quantity::bytes_per_second,
                 .labels = {{"collective", "allgather"}}},
                {.name = "latency ceiling",
                 .verdict = "WARN",
                 .severity = 1,
                 .message = "24 us, within 5% of 25 us",
                 .value = 24e-6,
                 .quantity = Quantity::seconds,
                 .labels = {}},
                {.name = "inter-node rule",
                 .verdict = "SKIP",
                 .message = "no matching points",
                 .quantity = Quantity::seconds,
                 .skipped = true,
                 .labels = {}}};
    run_ = verdict_run("2026-12-02T02:30:38Z", "2026-12-02T02:31:50Z");
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
  std::vector<VerdictRecord> records_;
  VerdictRun run_;
};

TEST(VerdictRun, FromTheResultFilesTimes) {
  const VerdictRun run = verdict_run("2026-12-02T02:30:38Z", "2026-12-02T02:31:50Z");
  EXPECT_EQ(run.started_unix_s, 1796178638.0);  // date -u -d 2026-12-02T02:30:38Z +%s
  EXPECT_EQ(run.duration_s, 72.0);
  EXPECT_FALSE(run.hostname.empty());
  const VerdictRun unknown = verdict_run("", "");
  EXPECT_TRUE(std::isnan(unknown.started_unix_s));
  EXPECT_EQ(unknown.duration_s, 0.0);
}

TEST_F(VerdictFiles, JunitCountsFailuresAndSkipsAndSaysWhenAndWhere) {
  const fs::path file = folder_ / "check.xml";
  write_junit(file, "collbench.check", records_, run_);
  const std::string xml = read(file);
  EXPECT_EQ(count(xml, "<testcase "), 4u);
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_EQ(count(xml, "<skipped "), 1u);
  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"72.000\" "
                     "timestamp=\"2026-12-02T02:30:38\" hostname=\"" + run_.hostname + "\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("allreduce &lt;world&gt; 8 ranks"), std::string::npos);  // escaped
  EXPECT_NE(xml.find("&quot;inter&quot;"), std::string::npos);
  EXPECT_NE(xml.find("&lt; 100 &amp; falling"), std::string::npos);
  EXPECT_EQ(xml.find("& falling"), std::string::npos);
}

TEST_F(VerdictFiles, PrometheusInBaseUnitsWithTheVerdictAsAValue) {
  const fs::path file = folder_ / "check.prom";
  { std::ofstream(file) << "stale\n"; }
  write_prometheus(file, "collbench_check", records_, run_);
  const std::string text = read(file);
  EXPECT_EQ(text.find("stale"), std::string::npos);
  const std::regex sample(R"(^([a-z_]+)(?:\{((?:[a-z_]+="(?:[^"\\]|\\.)*",?)*)\})? (\S+)$)");
  std::istringstream lines(text);
  std::string line;
  std::map<std::string, int> samples;
  while (std::getline(lines, line)) {
    if (line.starts_with("# HELP") || line.starts_with("# TYPE")) continue;
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, sample)) << line;
    ++samples[match[1]];
    EXPECT_EQ(line.find("verdict="), std::string::npos) << line;  // a value, not a label
  }
  EXPECT_EQ(samples, (std::map<std::string, int>{{"collbench_check_severity", 4},
                                                 {"collbench_check_bytes_per_second", 2},
                                                 {"collbench_check_seconds", 1},
                                                 {"collbench_check_run_timestamp_seconds", 1}}));
  EXPECT_NE(text.find(R"(name="allgather \"inter\" busbw floor",collective="allgather"} 2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("collbench_check_bytes_per_second{name=\"allreduce <world> 8 ranks busbw "
                      "floor\",collective=\"allreduce\",nranks=\"8\"} 312000000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("collbench_check_run_timestamp_seconds 1796178638\n"), std::string::npos);
  for (const auto& entry : fs::directory_iterator(folder_))  // no temporary left behind
    EXPECT_EQ(entry.path().extension(), ".prom") << entry.path();
}

TEST_F(VerdictFiles, AnUnwritableFileIsAnErrorNamingIt) {
  EXPECT_THROW(write_junit(folder_ / "missing" / "x.xml", "s", records_, run_), std::runtime_error);
  EXPECT_THROW(write_prometheus(folder_ / "missing" / "x.prom", "p", records_, run_),
               std::runtime_error);
}

}  // namespace
}  // namespace collbench
