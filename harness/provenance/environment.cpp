#include "environment.h"

#include <unistd.h>  // environ

#include <array>
#include <cctype>
#include <string>

namespace collbench {
namespace {

constexpr std::array<std::string_view, 5> kPrefixes{"NCCL_", "UCX_", "OMPI_", "SLURM_",
                                                    "CUDA_"};
// Even under a recorded prefix, a name like these may hold a credential (Open MPI's
// precondition_transports is a job key for PSM fabrics). "_KEY" spares InfiniBand's PKEY.
constexpr std::array<std::string_view, 7> kSecretWords{
    "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "_KEY", "PRECONDITION_TRANSPORTS"};

std::string upper(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

}  // namespace

bool is_recorded_variable(std::string_view name) {
  bool prefixed = false;
  for (auto prefix : kPrefixes) prefixed = prefixed || name.starts_with(prefix);
  if (!prefixed) return false;
  const std::string upper_name = upper(name);
  for (auto word : kSecretWords)
    if (upper_name.find(word) != std::string::npos) return false;
  return true;
}

std::map<std::string, std::string> recorded_environment() {
  std::map<std::string, std::string> recorded;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const auto name = text.substr(0, equals);
    if (is_recorded_variable(name)) recorded.emplace(name, text.substr(equals + 1));
  }
  return recorded;
}

}  // namespace collbench
