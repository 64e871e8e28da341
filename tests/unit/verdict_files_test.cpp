#include "harness/report/verdict_files.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
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
    records_ = {{"allreduce <world> 8 ranks busbw floor", "PASS", 0, "312 GB/s [305, 318] >= 300",
                 312, {{"collective", "allreduce"}, {"nranks", "8"}}},
                {"allgather \"inter\" busbw floor", "FAIL", 2, "88 GB/s < 100 & falling", 88,
                 {{"collective", "allgather"}}},
                {"latency ceiling", "WARN", 1, "24 us, within 5% of 25 us", 24, {}}};
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
  std::vector<VerdictRecord> records_;
};

TEST_F(VerdictFiles, JunitHasATestcasePerRecordAndAFailurePerFail) {
  const fs::path file = folder_ / "check.xml";
  write_junit(file, "collbench.check", records_);
  const std::string xml = read(file);
  EXPECT_EQ(count(xml, "<testcase "), 3u);
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("allreduce &lt;world&gt; 8 ranks"), std::string::npos);  // escaped
  EXPECT_NE(xml.find("&quot;inter&quot;"), std::string::npos);
  EXPECT_NE(xml.find("&lt; 100 &amp; falling"), std::string::npos);
  EXPECT_EQ(xml.find("& falling"), std::string::npos);
}

TEST_F(VerdictFiles, PrometheusLinesParseAndTheFileIsReplacedWhole) {
  const fs::path file = folder_ / "check.prom";
  { std::ofstream(file) << "stale\n"; }
  write_prometheus(file, "collbench_check", records_);
  const std::string text = read(file);
  EXPECT_EQ(text.find("stale"), std::string::npos);
  const std::regex sample(R"(^([a-z_]+)\{((?:[a-z_]+="(?:[^"\\]|\\.)*",?)*)\} (\S+)$)");
  std::istringstream lines(text);
  std::string line;
  int severities = 0, values = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("# HELP") || line.starts_with("# TYPE")) continue;
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, sample)) << line;
    severities += match[1] == "collbench_check_severity";
    values += match[1] == "collbench_check_value";
  }
  EXPECT_EQ(severities, 3);
  EXPECT_EQ(values, 3);
  EXPECT_NE(text.find(R"(name="allgather \"inter\" busbw floor")"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict=\"FAIL\",collective=\"allgather\"} 2"), std::string::npos) << text;
  for (const auto& entry : fs::directory_iterator(folder_))  // no temporary left behind
    EXPECT_EQ(entry.path().extension(), ".prom") << entry.path();
}

TEST_F(VerdictFiles, AnUnwritableFileIsAnErrorNamingIt) {
  EXPECT_THROW(write_junit(folder_ / "missing" / "x.xml", "s", records_), std::runtime_error);
  EXPECT_THROW(write_prometheus(folder_ / "missing" / "x.prom", "p", records_), std::runtime_error);
}

}  // namespace
}  // namespace collbench
