#include "whole_file.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace collbench {

void write_whole(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

void replace_whole(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path temporary =
      file.parent_path() / fmt::format(".{}.{}.tmp", file.filename().string(), ::getpid());
  std::error_code error;
  try {
    write_whole(temporary, text);
  } catch (...) {
    std::filesystem::remove(temporary, error);
    throw;
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw std::runtime_error(fmt::format("cannot write {}: {}", file.string(), error.message()));
  }
}

}  // namespace collbench
