#include "option_values.h"

#include <stdexcept>

#include "harness/plan/sizes.h"

namespace collbench {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::size_t size_option(const std::string& text, const char* option) {
  try {
    return parse_size(text);
  } catch (const std::invalid_argument& error) {
    throw UsageError(fmt::format("{}: {}", option, error.what()));
  }
}

void require(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

}  // namespace collbench
