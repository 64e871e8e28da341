#pragma once
// What a real GPU would answer only with a crash, a hang or a wrong number, the stand-in answers
// with the call and the argument named, on stderr, and an abort.
#include <fmt/format.h>

#include <string>

namespace standin {

[[noreturn]] void violation(const std::string& call, const std::string& what);

template <typename... Args>
[[noreturn]] void violation(const std::string& call, fmt::format_string<Args...> format,
                            Args&&... args) {
  violation(call, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace standin
