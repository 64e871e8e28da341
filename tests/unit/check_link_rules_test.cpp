// [[link]] rules: what parses into which selection and threshold, every error naming file, line
// and rule; and links judged against them, with synthetic link models.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/check/check_report.h"
#include "harness/check/spec.h"
#include "tests/unit/spec_problems.h"
#include "harness/check/verdicts.h"

namespace collbench {
namespace {

TEST(CheckLinkRules, ParsesEachKeyInTheFilesOrder) {
  const Spec spec = parse_spec(R"(
warn_within = "5%"

[[link]]
name = "inter-floor"
kind = "inter"
host = "node01"
bandwidth_min = "80 Gbit/s"
optional = true

[[rule]]
collective = "allreduce"
busbw_min = "1 GB/s"

[[link]]
kind = "intra"
between = ["node01", "node02"]
latency_max = "50 us"
warn_within = "10%"
)", "links.toml");
  ASSERT_EQ(spec.rules.size(), 3u);

  const Rule& floor = spec.rules[0];
  EXPECT_EQ(floor.index, 1);
  EXPECT_EQ(floor.line, 4);
  EXPECT_EQ(floor.name, "inter-floor");
  ASSERT_TRUE(floor.link_selection);
  EXPECT_EQ(floor.link_selection->kind, LinkKind::inter);
  EXPECT_EQ(floor.link_selection->host, "node01");
  EXPECT_FALSE(floor.link_selection->between);
  EXPECT_EQ(floor.threshold.key, "bandwidth_min");
  EXPECT_EQ(floor.threshold.metric, Metric::bandwidth);
  EXPECT_DOUBLE_EQ(*floor.threshold.floor, 10);  // 80 Gbit/s in GB/s
  EXPECT_EQ(floor.threshold.unit, "Gbit/s");
  EXPECT_DOUBLE_EQ(floor.threshold.warn_within, 0.05);
  EXPECT_TRUE(floor.optional);

  EXPECT_FALSE(spec.rules[1].link_selection);  // the [[rule]] between them
  EXPECT_EQ(spec.rules[1].index, 2);

  const Rule& latency = spec.rules[2];
  EXPECT_EQ(latency.index, 3);
  EXPECT_EQ(latency.link_selection->between,
            (std::pair<std::string, std::string>{"node01", "node02"}));
  EXPECT_EQ(latency.threshold.metric, Metric::alpha);  // a link's latency is its alpha
  EXPECT_DOUBLE_EQ(*latency.threshold.ceiling, 50);
  EXPECT_FALSE(latency.threshold.floor);
  EXPECT_DOUBLE_EQ(latency.threshold.warn_within, 0.1);
  EXPECT_FALSE(latency.optional);
  EXPECT_EQ(latency.name, "intra link node01 <-> node02 latency_max");
  EXPECT_EQ(describe_selection(floor), "inter links of node01");
}

TEST(CheckLinkRules, ASpecOfLinksAloneIsASpec) {
  const Spec spec = parse_spec("[[link]]\nlatency_max = \"1 ms\"\n", "x.toml");
  EXPECT_EQ(spec.rules[0].name, "links latency_max");
  EXPECT_DOUBLE_EQ(*spec.rules[0].threshold.ceiling, 1000);
}

TEST(CheckLinkRules, ProblemsNameFileLineRuleAndWhat) {
  auto p = problems_of("[[link]]\nbandwidth_min = \"10 Gb/s\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: bandwidth_min: '10 Gb/s' has unknown unit 'Gb/s'"),
            std::string::npos) << p;
  p = problems_of("[[link]]\nlatency_max = \"50 GB/s\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: latency_max:"), std::string::npos) << p;
  EXPECT_NE(p.find("for a time"), std::string::npos) << p;
  p = problems_of("[[link]]\nlatency_max = \"50 us\"\nbandwidth_min = \"1 GB/s\"\n");
  EXPECT_NE(p.find("rule 1: two thresholds (latency_max, bandwidth_min)"), std::string::npos) << p;
  p = problems_of("[[link]]\nkind = \"inter\"\n");
  EXPECT_NE(p.find("spec.toml:1: rule 1: no threshold: give one of latency_max, bandwidth_min"),
            std::string::npos) << p;
  p = problems_of("[[link]]\nhost = \"a\"\nbetween = [\"a\", \"b\"]\nlatency_max = \"5 us\"\n");
  EXPECT_NE(p.find("spec.toml:3: rule 1: give host or between, not both"), std::string::npos) << p;
  p = problems_of("[[link]]\nbetween = [\"a\"]\nlatency_max = \"5 us\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: between must name two hosts"), std::string::npos) << p;
  p = problems_of("[[link]]\nhost = 3\nlatency_max = \"5 us\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: host must be a string"), std::string::npos) << p;
}

TEST(CheckLinkRules, UnknownKeysAndKindTyposAreNamed) {
  auto p = problems_of(R"([[rule]]
busbw_min = "1 GB/s"

[[link]]
kind = "inter"
bandwith_min = "1 GB/s"
)");
  EXPECT_NE(p.find("spec.toml:6: rule 2: unknown key 'bandwith_min' (did you mean "
                   "'bandwidth_min'?)"),
            std::string::npos) << p;
  p = problems_of("[[link]]\ncollective = \"allreduce\"\nlatency_max = \"5 us\"\n");
  EXPECT_NE(p.find("spec.toml:2: rule 1: unknown key 'collective'"), std::string::npos) << p;
  p = problems_of("[[link]]\nkind = \"iner\"\nlatency_max = \"5 us\"\n");
  EXPECT_NE(
      p.find("spec.toml:2: rule 1: kind 'iner' selects nothing: expected one of inter, intra"),
      std::string::npos) << p;
  p = problems_of("link = 3\n");
  EXPECT_NE(p.find("spec.toml:1: link must be tables: write [[link]]"), std::string::npos) << p;
}

TEST(CheckLinkRules, TheSameLinksHeldTwiceOverlap) {
  const auto p = problems_of(R"([[link]]
host = "a"
latency_max = "5 us"
[[link]]
host = "a"
latency_max = "9 us"
)");
  EXPECT_NE(p.find("spec.toml:4: rule 2: overlaps rule 1 (line 1)"), std::string::npos) << p;
}

// One rank per host, numbered by the host's letter, so that links are named by host.
LinkFit link(const std::string& first, const std::string& second, LinkKind kind, double alpha_us,
             double bandwidth_GBps) {
  LinkFit fit;
  fit.first_host = first;
  fit.second_host = second;
  fit.first_rank = first[0] - 'a';
  fit.second_rank = second[0] - 'a';
  fit.kind = kind;
  fit.alpha_us = alpha_us;
  fit.bandwidth_GBps = bandwidth_GBps;
  return fit;
}

// Three hosts: a-b slow, a-c and b-c at 10 GB/s.
const std::vector<LinkFit> kLinks{link("a", "b", LinkKind::inter, 20, 2),
                                  link("a", "c", LinkKind::inter, 15, 10),
                                  link("b", "c", LinkKind::inter, 12, 10)};

RuleVerdict judged(const std::string& table) {
  const Spec spec = parse_spec("[[link]]\n" + table, "judge.toml");
  return judge_rule(spec.rules[0], {}, nullptr, kLinks);
}

TEST(CheckLinkRules, PassWarnAndFailByTheWorstLink) {
  RuleVerdict v = judged("latency_max = \"25 us\"\n");
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_EQ(v.judged, 3u);
  ASSERT_TRUE(v.measured);
  EXPECT_DOUBLE_EQ(v.measured->value, 20);
  EXPECT_EQ(v.measured->where, "a <-> b");
  EXPECT_EQ(format_measured(v.rule.threshold, *v.measured), "20 us");  // no interval

  v = judged("latency_max = \"21 us\"\nwarn_within = \"10%\"\n");
  EXPECT_EQ(v.verdict, Verdict::warn);
  EXPECT_EQ(v.warning, 1u);
  EXPECT_NE(v.message.find("within 10% of the ceiling at a <-> b"), std::string::npos) << v.message;

  v = judged("bandwidth_min = \"5 GB/s\"\n");
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.failing, 1u);
  EXPECT_NE(v.message.find("3 links judged, 1 fail; 60% below the floor at a <-> b"),
            std::string::npos) << v.message;
  EXPECT_EQ(v.measured->link->first_host, "a");
}

TEST(CheckLinkRules, SelectingNothingFailsUnlessOptional) {
  RuleVerdict v = judged("kind = \"intra\"\nlatency_max = \"25 us\"\n");
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.message, "no matching links");
  EXPECT_FALSE(v.measured);
  v = judged("kind = \"intra\"\nlatency_max = \"25 us\"\noptional = true\n");
  EXPECT_EQ(v.verdict, Verdict::skip);
  EXPECT_EQ(v.message, "no matching links (optional rule)");
  // A run's file has points and no links: its link rules select nothing.
  const Spec spec = parse_spec("[[link]]\nlatency_max = \"25 us\"\n", "run.toml");
  EXPECT_EQ(judge_spec(spec, {}, nullptr)[0].message, "no matching links");
}

TEST(CheckLinkRules, HostAndBetweenSelectByHostName) {
  RuleVerdict v = judged("host = \"c\"\nbandwidth_min = \"5 GB/s\"\n");
  EXPECT_EQ(v.verdict, Verdict::pass);  // the slow a-b link is not c's
  EXPECT_EQ(v.judged, 2u);
  v = judged("between = [\"b\", \"a\"]\nlatency_max = \"25 us\"\n");  // either way round
  EXPECT_EQ(v.judged, 1u);
  EXPECT_EQ(v.measured->where, "a <-> b");

  LinkFit inside = link("a", "a", LinkKind::intra, 1, 50);
  inside.first_rank = 2;
  inside.second_rank = 3;
  LinkSelection selection;
  selection.host = "a";
  EXPECT_TRUE(selects(selection, inside));
  selection.kind = LinkKind::inter;
  EXPECT_FALSE(selects(selection, inside));
  selection = {};
  selection.between = {"a", "b"};
  EXPECT_FALSE(selects(selection, inside));
}

TEST(CheckLinkRules, LinksInsideAHostAreNamedByRank) {
  LinkFit inside = link("h", "h", LinkKind::intra, 1, 5);
  inside.first_rank = 0;
  inside.second_rank = 1;
  const Spec spec = parse_spec("[[link]]\nhost = \"h\"\nlatency_max = \"2 us\"\n", "r.toml");
  const RuleVerdict v = judge_rule(spec.rules[0], {}, nullptr, std::vector{inside});
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_EQ(v.measured->where, "rank 0 on h <-> rank 1 on h");
}

TEST(CheckLinkRules, RecordsAndJsonCarryTheLink) {
  const RuleVerdict v =
      judged("name = \"ab\"\nbetween = [\"a\", \"b\"]\nbandwidth_min = \"1 GB/s\"\n");
  const VerdictRecord record = check_record(v, "links");
  EXPECT_EQ(record.name, "ab");
  EXPECT_EQ(record.verdict, "PASS");
  EXPECT_DOUBLE_EQ(record.value, 2e9);  // bytes per second
  const std::vector<std::pair<std::string, std::string>> labels{
      {"spec", "links"}, {"rule", "1"},   {"link_kind", "any"}, {"host", "any"},
      {"between", "a,b"}, {"metric", "bandwidth"}};
  EXPECT_EQ(record.labels, labels);
  const auto json = check_json({v}, {"links.h5", "judge.toml"}, Spec{}, v.verdict);
  const auto& rule = json["rules"][0];
  EXPECT_EQ(rule["table"], "link");
  EXPECT_EQ(rule["selected"]["between"][1], "b");
  EXPECT_EQ(rule["measured"]["second_host"], "b");
  EXPECT_TRUE(rule["measured"]["ci_low"].is_null());
}

}  // namespace
}  // namespace collbench
