#pragma once
// What collbench ships beside its binary: the plots, the acceptance specs (found by name:
// `check --spec h100-hgx`) and the Slurm scripts. An install (`cmake --install`) lays them out
// under <prefix>/share/collbench, found from the binary's own place so that a prefix can be
// moved; a binary run from its build tree finds them in the source tree it was built from.
#include <filesystem>
#include <string>
#include <string_view>

namespace collbench {

// <prefix>/share/collbench/<installed> beside an installed binary, else <source>/<in_source>.
std::filesystem::path shipped_folder(std::string_view installed, std::string_view in_source);

// `spec` itself where it names a file; else the shipped spec of that name. Throws UsageError
// naming the shipped specs when it is neither.
std::filesystem::path resolve_spec(const std::string& spec);

}  // namespace collbench
