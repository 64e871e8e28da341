#pragma once
#include <string_view>

namespace collbench {

std::string_view collbench_version();
// The commit this binary was built from, found at every build (cmake/git_revision.cmake), with
// "-dirty" when the tree differed from it; "unknown" outside git.
std::string_view git_revision();

}  // namespace collbench
