#include "version.h"

namespace collbench {

std::string_view collbench_version() { return COLLBENCH_VERSION; }
std::string_view git_revision() { return COLLBENCH_GIT_REVISION; }

}  // namespace collbench
