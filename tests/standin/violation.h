#pragma once
// What a real GPU would answer only with a crash, a hang or a wrong number, the stand-in answers
// with the call and the argument named, on stderr, and an abort.
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace standin {

[[noreturn]] void violation(std::string_view call, const std::string& what);

template <typename... Args>
[[noreturn]] void violation(std::string_view call, fmt::format_string<Args...> format,
                            Args&&... args) {
  violation(call, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace standin
