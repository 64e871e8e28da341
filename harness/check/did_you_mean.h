#pragma once
// "unknown key 'busbw_mn' (did you mean 'busbw_min'?)": a typo in a spec names the key it
// probably meant, so the fix is obvious from the message.
#include <span>
#include <string>
#include <string_view>

namespace collbench {

// The message for an unknown `key`, suggesting the nearest of `known` when it is a near miss.
std::string unknown_key(std::string_view key, std::span<const std::string_view> known);

}  // namespace collbench
