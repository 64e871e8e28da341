#include "clock.h"

#include <ctime>

namespace collbench {
namespace {

std::string format_utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

}  // namespace

std::string utc_now_iso8601() { return format_utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_timestamp_for_filename() { return format_utc_now("%Y%m%dT%H%M%SZ"); }

}  // namespace collbench
