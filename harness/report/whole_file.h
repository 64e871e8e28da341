#pragma once
// Files written whole: a reader sees the old one or the new one, never half of either.
#include <filesystem>
#include <string>

namespace collbench {

// Writes `text` to `file`; throws std::runtime_error naming the file when it cannot.
void write_whole(const std::filesystem::path& file, const std::string& text);

// Writes `text` to a temporary file beside `file`, then renames it over `file`; throws
// std::runtime_error naming the file, and leaves no temporary, when it cannot.
void replace_whole(const std::filesystem::path& file, const std::string& text);

}  // namespace collbench
