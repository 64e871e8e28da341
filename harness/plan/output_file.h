#pragma once
// Where a command writes its file (`run`, `links`, `predict`), as --out and --force resolved it.
#include <filesystem>

namespace collbench {

struct OutputFile {
  std::filesystem::path path;
  bool default_path = false;  // results/<UTC time>-<suffix>.h5: its folder is made when written
  bool force = false;         // an existing file is overwritten
};

}  // namespace collbench
