#pragma once
// Check's verdicts for people and for machines, beside compare's (compare/compare_report.h):
// the table `collbench check` prints, its JSON, one VerdictRecord per rule for the JUnit and
// Prometheus files, and a spec's parsed rules, for readers that need its thresholds in
// canonical units (plots draw the busbw floors) without parsing TOML and units again.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/check/spec.h"
#include "harness/check/verdicts.h"
#include "harness/report/verdict_files.h"

namespace collbench {

struct CheckedFiles {
  std::string file;  // the result file
  std::string spec;  // the spec's path
};

void print_check_table(std::ostream& out, const std::vector<RuleVerdict>& verdicts,
                       const CheckedFiles& files, Verdict overall);
nlohmann::ordered_json check_json(const std::vector<RuleVerdict>& verdicts,
                                  const CheckedFiles& files, const Spec& spec, Verdict overall);

// A rule's verdict as JUnit and Prometheus see it: labelled with its selection ("any" where the
// rule leaves a field open), its value in GB/s or microseconds.
VerdictRecord check_record(const RuleVerdict& verdict, const std::string& spec_title);

// Every rule as parsed: its selection (of points or of links) field by field (null where open)
// and its bounds in GB/s or microseconds.
nlohmann::ordered_json spec_json(const Spec& spec);
// The rules one per line, as `check` names and bounds them.
void print_spec_table(std::ostream& out, const Spec& spec);

}  // namespace collbench
