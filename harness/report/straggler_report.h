#pragma once
// The named stragglers in text: one footer line each under `run`'s table and `report`'s, none
// when nobody was named; and a JSON array for scripts, the columns of /stragglers.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/stats/stragglers.h"

namespace collbench {

// "# Straggler: rank 2 on host h3 finished last in 8 of 8 points (chance 33% each, p = 0.00046)
// and in 97% of 1,200 samples, 1.93 ms behind the others at the median"; when `binding` says how
// the ranks were not placed one a core (provenance `binding_warning`), a line that says the
// scheduler, not the machine, may have made them last.
std::vector<std::string> straggler_footer_lines(const StragglerRecord& record,
                                                const std::string& binding_warning = {});
nlohmann::ordered_json stragglers_json(const StragglerRecord& record);

}  // namespace collbench
