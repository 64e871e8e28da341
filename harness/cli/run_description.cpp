#include "run_description.h"

#include "harness/provenance/provenance.h"

namespace collbench {
namespace {

int integer_or_zero(const Provenance& provenance, const std::string& key) {
  const auto found = provenance.integers.find(key);
  return found == provenance.integers.end() ? 0 : static_cast<int>(found->second);
}

}  // namespace

RunDescription describe_run(const Provenance& p, const std::vector<RankTopology>& ranks) {
  return {p.text_of("collbench_version"),
          p.text_of("backend"),
          p.text_of("backend_version"),
          integer_or_zero(p, "nranks"),
          integer_or_zero(p, "nodes"),
          p.hosts,
          p.text_of("start_utc"),
          p.text_of("command_line"),
          plausibility_bound_of(p),
          ranks,
          p.environment,
          p.text_of("settings_json"),
          p.text_of("nccl_version_library")};
}

}  // namespace collbench
