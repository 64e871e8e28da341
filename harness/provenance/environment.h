#pragma once
// The environment variables that change how the libraries behave, and nothing else: the
// whole environment carries secrets (tokens, keys) that must never reach a result file.
#include <map>
#include <string>
#include <string_view>

namespace collbench {

bool is_recorded_variable(std::string_view name);

// Reads `environ` and keeps what is_recorded_variable accepts.
std::map<std::string, std::string> recorded_environment();

}  // namespace collbench
