#include "check_command.h"

#include <iostream>
#include <span>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/check/check_report.h"
#include "harness/check/spec.h"
#include "harness/check/verdicts.h"
#include "harness/cli/shipped_files.h"
#include "harness/cli/verdict_outputs.h"
#include "harness/errors.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

// One suite, and one stable Prometheus file, per spec.
VerdictJob job_of(const Spec& spec) { return {spec.title, "collbench_check", spec.title}; }

// Without a result file: the spec's rules as parsed, so a spec is checked before a run and
// readers get its thresholds in canonical units.
int print_spec(const CheckOptions& options, const Spec& spec) {
  if (!options.outputs.junit.empty() || !options.outputs.prom.empty() ||
      !options.outputs.prom_dir.empty())
    throw UsageError("--junit, --prom and --prom-dir need a result file to judge");
  if (options.outputs.format == "json")
    std::cout << spec_json(spec).dump(2) << '\n';
  else
    print_spec_table(std::cout, spec);
  return kExitOk;
}

}  // namespace

void add_check_options(CLI::App& command, CheckOptions& options) {
  command.add_option("file", options.file,
                     "result file (.h5); without one, the spec's rules are printed as parsed");
  command.add_option("--spec", options.spec,
                     "acceptance spec: a TOML file, or the name of a shipped one (h100-hgx, ...)")
      ->required();
  add_verdict_output_options(command, options.outputs,
                             "also write JUnit XML: one test case per rule",
                             "also write a Prometheus textfile (node_exporter), atomically");
}

int check_command(const CheckOptions& options) {
  check_verdict_outputs(options.outputs);
  const std::string spec_file = resolve_spec(options.spec).string();
  const Spec spec = parse_spec_file(spec_file);
  if (options.file.empty()) return print_spec(options, spec);
  const ResultFile file = read_result_file(options.file, false);
  const ModelReport* models = file.models ? &*file.models : nullptr;
  std::span<const LinkFit> links;
  if (file.links && file.links->analysis) links = file.links->analysis->fits;
  const auto verdicts = judge_spec(spec, file.points, models, links);
  const Verdict verdict = overall(verdicts);
  const CheckedFiles files{options.file, spec_file};
  if (options.outputs.format == "json")
    std::cout << check_json(verdicts, files, spec, verdict).dump(2) << '\n';
  else
    print_check_table(std::cout, verdicts, files, verdict);
  std::cout.flush();
  if (!file.complete && file.links)
    fmt::print(stderr, "collbench check: note: {} is from a links run that did not finish; its "
                       "links are modelled only once it does, so no link was judged\n",
               options.file);
  else if (!file.complete)
    fmt::print(stderr, "collbench check: note: {} is from a run that did not finish; only its "
                       "{} finished points were judged\n",
               options.file, file.points.size());
  std::vector<VerdictRecord> records;
  for (const auto& v : verdicts) records.push_back(check_record(v, spec.title));
  write_verdict_files(options.outputs, job_of(spec),
                      verdict_run(file.provenance.text_of("start_utc"),
                                  file.provenance.text_of("end_utc")),
                      records);
  return verdict == Verdict::fail ? kExitWrongOrFailed : kExitOk;
}

}  // namespace collbench
