#pragma once
// The fitted models as text: a table for `collbench fit`, one footer line per curve under
// `run`'s table, and JSON for scripts. Each curve leads with its headline (curve_fits.h): n½
// and where it lies, alpha, the large-message bandwidth, the misfit. A parameter that cannot be
// trusted is never printed as a number: its place says "n/a" and the flags say why.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/fit/curve_fits.h"

namespace collbench {

// With `segments`, each curve's segments follow its headline.
void print_model_table(std::ostream& out, const ModelReport& report, bool segments = false);
// "n½ ...; alpha ...; ... GB/s ...; misfit ...", or why the curve has no headline.
std::string headline_text(const CurveFit& curve);
std::vector<std::string> model_footer_lines(const ModelReport& report);
nlohmann::ordered_json model_json(const ModelReport& report);

// A size in bytes as run's table writes it (format_size), a fraction of a byte as such,
// "unbounded" for an infinite one (an n½ whose beta reached 0).
std::string bytes_text(double bytes);
// " [lo, hi]" of a crossover rank count; "unbounded" past the replicates that lost alpha.
std::string ranks_interval_text(const Interval& ci);

}  // namespace collbench
