#include "version.h"

namespace collbench {

std::string_view collbench_version() { return COLLBENCH_VERSION; }

}  // namespace collbench
