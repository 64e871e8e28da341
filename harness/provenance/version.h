#pragma once
#include <string_view>

namespace collbench {

std::string_view collbench_version();
std::string_view git_revision();

}  // namespace collbench
