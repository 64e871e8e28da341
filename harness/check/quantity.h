#pragma once
// Numbers with units as acceptance specs write them: "300 GB/s", "25 us", "5%". Units are
// required, so a spec cannot silently mean GB/s where it wrote Gb/s or microseconds where it
// meant milliseconds.
#include <string>
#include <string_view>

namespace collbench {

// "300 GB/s" -> 300 (GB/s), "25 us" -> 25 (us), "5%" -> 0.05: the quantity in canonical units
// and the unit as written. Throws std::invalid_argument naming the expected units.
struct WrittenQuantity {
  double value = 0;
  std::string unit;
  double scale = 1;
};
WrittenQuantity parse_bandwidth(std::string_view text);
WrittenQuantity parse_time(std::string_view text);
double parse_fraction(std::string_view text, bool signed_required);

// `text` without leading and trailing white space: spec values are read the way
// quantities are.
std::string_view trimmed(std::string_view text);

}  // namespace collbench
