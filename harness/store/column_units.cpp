#include "harness/store/column_units.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "harness/store/h5_table.h"
#include "harness/store/layout.h"

namespace collbench {

std::string column_units(hid_t table) {
  const std::vector<std::string> columns = h5::column_names(table);
  std::string units;
  for (const auto& [suffix, unit] : kUnitSuffixes) {
    const bool carried = std::any_of(columns.begin(), columns.end(), [suffix](const auto& column) {
      return std::string_view(column).ends_with(suffix);
    });
    if (carried) units += fmt::format("{}{} {}", units.empty() ? "" : ", ", suffix, unit);
  }
  return units.empty() ? units : "per field name: " + units;
}

void write_column_units(hid_t table) {
  const std::string units = column_units(table);
  if (!units.empty()) h5::write_string_attribute(table, layout::kUnits, units);
}

}  // namespace collbench
