#pragma once
// While a DamagedFileGuard lives, a crash of the process (SIGSEGV, SIGBUS) ends it with exit 2
// and a message naming the file being read, instead of a signal. collbench writes the earliest
// file format, whose object headers carry no checksum: a block torn by a kill stays readable
// (h5.h, create_compact_group), where a checksummed one loses every point. HDF5 1.10 trusts what
// it reads there, and some damage (a compound's member offsets, an attribute message) made it
// read out of bounds: 3 of 800 copies with 4 or 16 bits flipped, once the files held no
// variable-length data (tests/integration/test_damaged_files.py). A damaged file is bad input.
// Takes effect where no library holds the signals (give_back_library_crash_handlers).
#include <csignal>
#include <filesystem>

namespace collbench {

class DamagedFileGuard {
 public:
  explicit DamagedFileGuard(const std::filesystem::path& path);
  ~DamagedFileGuard();
  DamagedFileGuard(const DamagedFileGuard&) = delete;
  DamagedFileGuard& operator=(const DamagedFileGuard&) = delete;

 private:
  struct sigaction previous_segv_ {};
  struct sigaction previous_bus_ {};
};

}  // namespace collbench
