#pragma once
// The fitted models as text: a table for `collbench fit`, one footer line per curve under
// `run`'s table, and JSON for scripts. A parameter that cannot be trusted is never printed as
// a number: its place says "n/a" and the flags say why.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/fit/curve_fits.h"

namespace collbench {

void print_model_table(std::ostream& out, const ModelReport& report);
std::vector<std::string> model_footer_lines(const ModelReport& report);
nlohmann::ordered_json model_json(const ModelReport& report);

}  // namespace collbench
